import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import type { Deps } from '../domain/deps.js';
import type { ConsoleOptions } from '../domain/console/resolve-console-settings.js';
import { CursorCodec } from './cursor.js';
import { swaggerOptions } from './openapi/swagger-options.js';
import { billingRoutes } from './routes/billing.js';
import { billingAdminRoutes } from './routes/billing-admin.js';
import { tenantAdminRoutes } from './routes/tenants-admin.js';
import { registerAuth } from './plugins/auth.js';
import { frameworkErrors, registerProblemHandlers } from './plugins/problem.js';
import { registerIdempotency } from './plugins/idempotency.js';
import { registerRequestDeps } from './plugins/request-deps.js';
import { registerMetricsRoute, registerRequestMetrics } from './plugins/metrics.js';
import {
  registerAddressLimit,
  registerAnonymousLimit,
  registerKeyLimit,
  type HttpRateLimits,
} from './plugins/rate-limit.js';
import type { Metrics } from '../observability/create-metrics.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerRequestLog } from './plugins/request-log.js';
import { credentialRoutes } from './routes/credentials.js';
import { keyRoutes } from './routes/keys.js';
import { auditEventRoutes } from './routes/audit-events.js';
import { policyRoutes } from './routes/policy.js';
import { presenceRoutes } from './routes/presence.js';
import { publicRoutes } from './routes/public.js';
import { receiptEvidenceRoutes } from './routes/receipt-evidence.js';
import { receiptRoutes } from './routes/receipts.js';
import { receiptLogRoutes } from './routes/receipt-log.js';
import { recordRouteTable } from './route-table.js';
import type { RouteDeps } from './routes/route-deps.js';
import { webhookRoutes } from './routes/webhooks.js';
import { approvalRoutes } from './routes/approvals.js';
import { approvalLinkRoutes, enrollmentLinkRoutes } from './routes/approval-links.js';
import { sdkTarballRoutes } from './routes/sdk-tarball.js';
import type { App } from './types.js';
import { buildValidatorsByPart } from './validators.js';
import { cryptoRandom } from '../crypto-random.js';
import { fastifyTrustProxy, type TrustProxy } from '../config/read-trust-proxy.js';

export interface HttpOptions {
  logger: FastifyBaseLogger | false;
  bodyLimitBytes: number;
  trustProxy: TrustProxy;
  /** Per key, per tenant, per address failing authentication; a missing limiter is off. */
  rateLimits: HttpRateLimits;
  metrics: Metrics;
  /** Set → GET /metrics on this app, behind this bearer token. */
  metricsToken?: string | undefined;
  /** Keys the pagination cursor MACs. */
  cursorKey: Buffer;
  /** The cursor key of the master key being rotated out, if any. */
  previousCursorKey?: Buffer | undefined;
  /** True once shutdown began: /readyz answers 503. */
  isDraining?: () => boolean;
  /** Console origin and lifetimes (for invite links the operator API makes). */
  console: ConsoleOptions;
  /** Origin of approval and enrollment links (PRESENCE_PUBLIC_ORIGIN); default the console origin. */
  publicOrigin?: string | undefined;
  /** Extra encapsulated plugins (the portal), registered after the API. */
  plugins?: ((app: App, routeDeps: RouteDeps) => Promise<void>)[];
}

export async function buildApp(deps: Deps, options: HttpOptions): Promise<App> {
  const base = {
    bodyLimit: options.bodyLimitBytes,
    trustProxy: fastifyTrustProxy(options.trustProxy),
    genReqId: () => `req_${cryptoRandom.bytes(12).toString('base64url')}`,
    requestIdHeader: false as const,
    // plugins/request-log.ts logs one line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: 'array' as const, allErrors: true } },
    schemaController: { compilersFactory: { buildValidator: buildValidatorsByPart } },
    routerOptions: { maxParamLength: 1500 },
    frameworkErrors,
    // While draining (SIGTERM), a request that still arrives on an open keep-alive connection is
    // served, not refused with Fastify's own non-problem 503: /readyz already took us out of rotation.
    return503OnClosing: false,
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
  registerRequestLog(app);
  registerProblemHandlers(app);
  registerJsonBody(app);
  await app.register(swagger, swaggerOptions);
  registerRequestMetrics(app, options.metrics);
  registerAddressLimit(app, options.rateLimits, options.metrics);
  registerAnonymousLimit(app, options.rateLimits, options.metrics);
  registerAuth(app, deps);
  registerKeyLimit(app, options.rateLimits, options.metrics);
  registerRequestDeps(app, deps);
  registerIdempotency(app, deps);
  registerMetricsRoute(app, options.metrics, options.metricsToken);
  const routeDeps: RouteDeps = {
    cursors: new CursorCodec(options.cursorKey, options.previousCursorKey),
    metrics: options.metrics,
    isDraining: options.isDraining ?? (() => false),
    console: options.console,
    links: {
      publicOrigin: options.publicOrigin ?? options.console.origin,
      consoleOrigin: options.console.origin,
    },
    rateLimits: options.rateLimits,
  };
  for (const routes of [
    publicRoutes,
    presenceRoutes,
    credentialRoutes,
    receiptRoutes,
    receiptEvidenceRoutes,
    receiptLogRoutes,
    keyRoutes,
    auditEventRoutes,
    policyRoutes,
    billingRoutes,
    billingAdminRoutes,
    tenantAdminRoutes,
    webhookRoutes,
    approvalRoutes,
    enrollmentLinkRoutes,
    sdkTarballRoutes,
  ]) {
    routes(app, routeDeps);
  }
  await app.register(async (child) => approvalLinkRoutes(child, routeDeps));
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  for (const plugin of options.plugins ?? []) await plugin(app, routeDeps);
  return app;
}
