import type { RouteDeps } from '../http/routes/route-deps.js';
import type { App } from '../http/types.js';
import { currentPolicy } from '../domain/policy/get-policy.js';
import { DEMO_PAYOUT_TEMPLATE } from './demo-action.js';
import { renderDemoPage } from './demo-page.js';
import { demoRoutes } from './demo-routes.js';
import { addSecurityHeaders } from './security-headers.js';
import { loadAssets, portalAssetPath, serveAssets, simpleWebAuthnBundlePath } from './static-assets.js';

export interface PortalOptions {
  /** The development tenant the demo page acts for; no demo when undefined. */
  demoTenantId: string | undefined;
}

const DEMO_ASSETS = '/demo/assets';

/** The first allowed origin when the page's host is none of the allowed origins' hosts. */
function openInstead(host: string | undefined, allowed: readonly string[]): string | undefined {
  const hosts = allowed.flatMap((o) => (URL.canParse(o) ? [new URL(o).host] : []));
  return host !== undefined && hosts.includes(host) ? undefined : allowed.find((o) => URL.canParse(o));
}

/** Operator pages and the demo page, in their own encapsulated Fastify context. */
export function portal(options: PortalOptions) {
  return async (app: App, _routeDeps: RouteDeps): Promise<void> => {
    const tenantId = options.demoTenantId;
    // Without a development tenant there is no demo: /demo falls through to the API's 404 problem+json.
    if (tenantId === undefined) return;
    const assets = await loadAssets(DEMO_ASSETS, {
      'demo.js': portalAssetPath('demo.js'),
      'demo.css': portalAssetPath('demo.css'),
      'simplewebauthn-browser.js': simpleWebAuthnBundlePath(),
    });
    await app.register(async (child) => {
      addSecurityHeaders(child);
      serveAssets(child, assets);
      demoRoutes(child, tenantId);
      child.get('/demo', { schema: { hide: true } }, async (request, reply) => {
        const { rules } = await currentPolicy(request.deps, tenantId);
        const page = renderDemoPage({
          template: DEMO_PAYOUT_TEMPLATE,
          rpId: rules.rpId,
          assetPrefix: DEMO_ASSETS,
          openInstead: openInstead(request.headers.host, rules.allowedOrigins),
        });
        return reply.header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page);
      });
    });
  };
}
