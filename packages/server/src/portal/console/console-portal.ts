import type { ConsoleSettings } from '../../domain/console/console-settings.js';
import type { RouteDeps } from '../../http/routes/route-deps.js';
import type { App } from '../../http/types.js';
import { addSecurityHeaders } from '../security-headers.js';
import { loadAssets, portalAssetPath, serveAssets, simpleWebAuthnBundlePath } from '../static-assets.js';
import { registerConsoleContext } from './console-context.js';
import { CONSOLE_ASSETS } from './layout.js';
import { registerProblemPages } from './problem-page.js';
import { registerFormParser } from './form-parser.js';
import { authRoutes } from './pages/auth-routes.js';
import { approvalRoutes } from './pages/approval-routes.js';
import { changeRequestRoutes } from './pages/change-requests.js';
import { changePages } from './pages/changes.js';
import { overviewRoutes } from './pages/overview.js';
import { keyPages } from './pages/keys.js';
import { webhookPages } from './pages/webhooks.js';
import { webhookEndpointPages } from './pages/webhook-endpoint.js';
import { receiptPages } from './pages/receipts.js';
import { credentialPages } from './pages/credentials.js';
import { policyPages } from './pages/policy.js';
import { usagePages } from './pages/usage.js';
import { memberPages } from './pages/members.js';
import { memberControlRoutes } from './pages/member-controls.js';
import { auditPages } from './pages/audit.js';
import { deniedPages } from './pages/denied.js';

export interface ConsolePortalOptions {
  settings: () => Promise<ConsoleSettings>;
  csrfKey: Buffer;
}

/** The tenant console under /console, in its own encapsulated Fastify context (docs/console.md). */
export function consolePortal(options: ConsolePortalOptions) {
  return async (app: App, _routeDeps: RouteDeps): Promise<void> => {
    const assets = await loadAssets(CONSOLE_ASSETS, {
      'console.js': portalAssetPath('console.js'),
      'console-changes.js': portalAssetPath('console-changes.js'),
      'console.css': portalAssetPath('console.css'),
      'simplewebauthn-browser.js': simpleWebAuthnBundlePath(),
    });
    await app.register(async (child) => {
      addSecurityHeaders(child);
      serveAssets(child, assets);
      registerFormParser(child);
      registerProblemPages(child);
      registerConsoleContext(child, async (request) => ({
        deps: request.deps,
        settings: await options.settings(),
        csrfKey: options.csrfKey,
      }));
      for (const routes of [
        authRoutes,
        approvalRoutes,
        changeRequestRoutes,
        changePages,
        overviewRoutes,
        keyPages,
        webhookPages,
        webhookEndpointPages,
        receiptPages,
        credentialPages,
        policyPages,
        usagePages,
        memberPages,
        memberControlRoutes,
        auditPages,
        deniedPages,
      ]) {
        routes(child);
      }
    });
  };
}
