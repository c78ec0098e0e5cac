import { randomBytes } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import type { Deps } from '../domain/deps.js';
import type { ConsoleOptions } from '../domain/console/resolve-console-settings.js';
import { CursorCodec } from './cursor.js';
import { billingRoutes } from './routes/billing.js';
import { billingAdminRoutes } from './routes/billing-admin.js';
import { tenantAdminRoutes } from './routes/tenants-admin.js';
import { registerAuth } from './plugins/auth.js';
import { frameworkErrors, registerProblemHandlers } from './plugins/problem.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerRateLimit } from './plugins/rate-limit.js';
import { credentialRoutes } from './routes/credentials.js';
import { keyRoutes } from './routes/keys.js';
import { policyRoutes } from './routes/policy.js';
import { presenceRoutes } from './routes/presence.js';
import { publicRoutes } from './routes/public.js';
import { receiptEvidenceRoutes } from './routes/receipt-evidence.js';
import { receiptRoutes } from './routes/receipts.js';
import { recordRouteTable } from './route-table.js';
import type { RouteDeps } from './routes/route-deps.js';
import { webhookRoutes } from './routes/webhooks.js';
import type { App } from './types.js';
import { buildValidatorsByPart } from './validators.js';

export interface HttpOptions {
  logger: FastifyBaseLogger | false;
  bodyLimitBytes: number;
  trustProxy: boolean;
  rateLimitPerMinute: number;
  /** Keys the pagination cursor MACs. */
  cursorKey: Buffer;
  /** Console origin and lifetimes (for invite links the operator API makes). */
  console: ConsoleOptions;
  /** Extra encapsulated plugins (the portal), registered after the API. */
  plugins?: ((app: App, routeDeps: RouteDeps) => Promise<void>)[];
}

export const API_INFO = {
  title: 'Presence API',
  version: '1.0.0',
  description:
    'Proof that a verified human approved one exact action: action-bound WebAuthn challenges, single-use decisions and offline-verifiable signed receipts.',
};

export async function buildApp(deps: Deps, options: HttpOptions): Promise<App> {
  const base = {
    bodyLimit: options.bodyLimitBytes,
    trustProxy: options.trustProxy,
    genReqId: () => `req_${randomBytes(12).toString('base64url')}`,
    requestIdHeader: false as const,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array' as const, allErrors: true } },
    schemaController: { compilersFactory: { buildValidator: buildValidatorsByPart } },
    routerOptions: { maxParamLength: 1500 },
    frameworkErrors,
  };
  const fastify =
    options.logger === false
      ? Fastify({ ...base, logger: false })
      : Fastify({ ...base, loggerInstance: options.logger });
  const app: App = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The API speaks JSON only: Fastify's built-in text/plain parser would turn a text body into a
  // string that then fails the schema (400); without it, any non-JSON body is a 415.
  app.removeContentTypeParser('text/plain');
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.decorate('routeTable', recordRouteTable(app));
  registerProblemHandlers(app);
  registerJsonBody(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: API_INFO,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'API key: presence_… (older keys: prs_…)' },
          operatorToken: { type: 'http', scheme: 'bearer', description: 'PRESENCE_ADMIN_TOKEN (/admin/v1)' },
        },
      },
      security: [{ apiKey: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  registerAuth(app, deps);
  registerRateLimit(app, options.rateLimitPerMinute, () => deps.clock.now());
  registerIdempotency(app, deps);
  const routeDeps: RouteDeps = {
    deps,
    cursors: new CursorCodec(options.cursorKey),
    console: options.console,
  };
  for (const routes of [
    publicRoutes,
    presenceRoutes,
    credentialRoutes,
    receiptRoutes,
    receiptEvidenceRoutes,
    keyRoutes,
    policyRoutes,
    billingRoutes,
    billingAdminRoutes,
    tenantAdminRoutes,
    webhookRoutes,
  ]) {
    routes(app, routeDeps);
  }
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  for (const plugin of options.plugins ?? []) await plugin(app, routeDeps);
  return app;
}
