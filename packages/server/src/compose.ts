import { createApiKeyCache } from './domain/api-keys/api-key-cache.js';
import { createPlanCache } from './domain/billing/plan-cache.js';
import { createCurrentPolicyCache, createPolicyCache } from './domain/policy/policy-cache.js';
import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import type { Deps } from './domain/deps.js';
import type { Clock, Store } from './domain/ports.js';
import { DEFAULT_SIGNING_KEY_REFRESH_MS, loadReceiptSigner } from './domain/receipts/receipt-signer.js';
import { loadLogSigner } from './domain/receipt-log/log-signer.js';
import { createSecretBox } from './domain/secrets.js';
import { PublicKeyCache } from './domain/webauthn/public-key-cache.js';
import { buildApp } from './http/app.js';
import type { App } from './http/types.js';
import { portal } from './portal/portal.js';
import { frontPages } from './portal/front-pages.js';
import { problemPages } from './portal/problem-pages.js';
import { linkPages } from './portal/links/link-pages.js';
import { consolePortal } from './portal/console/console-portal.js';
import { createDevInvite, ensureDevTenant, type DevelopmentStart } from './dev-tenant.js';
import type { ConsoleSettings } from './domain/console/console-settings.js';
import { DEFAULT_CONSOLE_TIMES } from './domain/console/console-settings.js';
import { consoleSettingsResolver, type ConsoleOptions } from './domain/console/resolve-console-settings.js';
import { assertSchemaCurrent, migrateDatabase } from './storage/migrate-database.js';
import { openStore } from './storage/open-store.js';
import type { Job } from './worker/run-jobs.js';
import { createWebhookJob } from './worker/deliver-webhooks.js';
import { createWebhookTransport } from './worker/webhook-transport.js';
import { createClosePeriodsJob } from './worker/close-periods-job.js';
import { createIdempotencyCleanupJob } from './worker/idempotency-cleanup-job.js';
import { createApprovalExpiryJob, createApprovalRecoveryJob } from './worker/approval-expiry-job.js';
import { createRetentionJob } from './worker/retention-job.js';
import { createReceiptLogJob } from './worker/receipt-log-job.js';
import { DEFAULT_BILLING_SETTINGS, type BillingSettings } from './domain/billing/billing-settings.js';
import { cryptoRandom } from './crypto-random.js';
import { createHeapBudget } from './heap-budget.js';
import { createApprovalWaiters } from './domain/approvals/approval-waiters.js';
import { composeObservability, type Observability } from './compose-observability.js';
import type { Metrics } from './observability/create-metrics.js';
import type { StoreOptions } from './storage/open-database.js';

export const systemClock: Clock = { now: () => Date.now() };
export { cryptoRandom };

export interface Composed {
  deps: Deps;
  app: App;
  store: Store;
  /** Background jobs (outbox delivery, schedulers); main.ts runs them with runJobs. */
  jobs: Job[];
  /** SIGTERM's first step: /readyz answers 503 from now on, so load balancers stop routing here. */
  startDraining(): void;
  /** The console's settings; its internal tenant is made on first use. */
  consoleSettings(): Promise<ConsoleSettings>;
  /** The process's metrics registry (GET /metrics, PRESENCE_METRICS_LISTEN). */
  metrics: Metrics;
  /** With the development tenant on: what main.ts prints in its start block. */
  development: DevelopmentStart | undefined;
  close(): Promise<void>;
}

/** Derives a purpose-specific key from the master key, so one secret never serves two uses. */
export function deriveKey(master: Buffer, purpose: string): Buffer {
  return createHmac('sha256', master).update(`presence/v1/${purpose}`).digest();
}

/** The console's options from the configuration (origin, invite and session lifetimes). */
export function consoleOptions(config: Config): ConsoleOptions {
  return {
    origin: config.consoleOrigin,
    inviteTtlMs: DEFAULT_CONSOLE_TIMES.inviteTtlMs,
    sessionIdleMs: config.consoleIdleMs,
    sessionAbsoluteMs: config.consoleSessionMs,
  };
}

/** Opens the database (migrating it first) and builds the domain's dependencies. */
export async function composeDeps(
  config: Config,
  storeHooks: Pick<StoreOptions, 'tracer' | 'onPool' | 'onSettleBatch'> = {},
): Promise<Deps> {
  const options = {
    databaseUrl: config.databaseUrl,
    sqlitePath: config.sqlitePath,
    pgPoolSize: config.pgPoolSize,
    pgConnectTimeoutMs: config.pgConnectTimeoutMs,
    sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs,
  };
  if (config.migrateOnStart) await migrateDatabase(options);
  else await assertSchemaCurrent(options);
  const deps = await depsFromStore(
    await openStore({ ...options, ...storeHooks, transactionGuard: config.transactionGuard }),
    config.masterKey,
    systemClock,
    {
      allowNets: config.webhookAllowNets,
      timeoutMs: config.webhookTimeoutMs,
    },
    config.billing,
    config.previousMasterKey,
    config.logOrigin,
    config.signingKeyRefreshMs,
  );
  return { ...deps, heapBudget: createHeapBudget({ growthBytes: config.exportHeapGrowthBytes }) };
}

/** Webhook transport settings; tests allow 127.0.0.0/8 to reach their local receivers. */
export interface WebhookTransportConfig {
  allowNets?: readonly string[];
  timeoutMs?: number;
}

/** The domain's dependencies around an open store; tests pass their own store and clock. */
export async function depsFromStore(
  store: Store,
  masterKey: Buffer,
  clock: Clock = systemClock,
  webhook: WebhookTransportConfig = {},
  billing: BillingSettings = DEFAULT_BILLING_SETTINGS,
  previousMasterKey?: Buffer,
  logOrigin = 'localhost',
  signingKeyRefreshMs: number = DEFAULT_SIGNING_KEY_REFRESH_MS,
): Promise<Deps> {
  const secrets = createSecretBox(
    deriveKey(masterKey, 'secrets-at-rest'),
    cryptoRandom,
    previousMasterKey && deriveKey(previousMasterKey, 'secrets-at-rest'),
  );
  const signer = await loadReceiptSigner({ store, clock, secrets }, signingKeyRefreshMs);
  // Creates the receipt-log key on first start, so keys.json lists it before any checkpoint.
  await loadLogSigner({ store, clock, secrets });
  const timeoutMs = webhook.timeoutMs ?? 10_000;
  const webhooks = createWebhookTransport({
    allowNets: webhook.allowNets ?? [],
    timeoutMs,
    connectTimeoutMs: Math.min(5000, timeoutMs),
  });
  return {
    store,
    clock,
    random: cryptoRandom,
    secrets,
    signer,
    publicKeys: new PublicKeyCache(),
    apiKeys: createApiKeyCache(clock),
    policies: createPolicyCache(clock),
    currentPolicies: createCurrentPolicyCache(clock),
    plans: createPlanCache(clock),
    webhooks,
    billing,
    logOrigin,
    heapBudget: createHeapBudget(),
    approvalWaiters: createApprovalWaiters(),
  };
}

/** The one place that knows every layer: storage → domain → http and portal. */
export async function compose(config: Config, logger: Logger | false): Promise<Composed> {
  const observability = await composeObservability(config, logger);
  return composeWith(await composeDeps(config, observability.storeOptions), config, logger, observability);
}

/** Builds the HTTP app (API and portal) around ready dependencies. */
export async function composeWith(
  deps: Deps,
  config: Config,
  logger: Logger | false,
  given?: Observability,
): Promise<Composed> {
  const observability = given ?? (await composeObservability(config, logger));
  observability.watchStore(deps);
  const development = config.devTenant ? await ensureDevTenant(deps, config, logger) : undefined;
  const devTenantId = development?.tenantId;
  let draining = false;
  const consoleSettings = consoleSettingsResolver(deps, consoleOptions(config));
  if (development !== undefined && logger !== false) {
    development.inviteUrl = await createDevInvite(deps, consoleOptions(config), development.tenantId);
  }
  const app = await buildApp(deps, {
    logger: logger === false ? false : logger,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    rateLimits: observability.rateLimits,
    metrics: observability.metrics,
    metricsToken: config.metricsToken,
    cursorKey: deriveKey(config.masterKey, 'cursor'),
    previousCursorKey: config.previousMasterKey && deriveKey(config.previousMasterKey, 'cursor'),
    isDraining: () => draining,
    console: consoleOptions(config),
    publicOrigin: config.publicOrigin,
    plugins: [
      problemPages,
      frontPages({ demo: devTenantId !== undefined, origin: config.consoleOrigin }),
      linkPages,
      portal({ demoTenantId: devTenantId }),
      consolePortal({ settings: consoleSettings, csrfKey: deriveKey(config.masterKey, 'console-csrf') }),
    ],
  });
  // Keeps keys.json and the signing schedule current; a copy older than 2× this is never signed with.
  const refresh = setInterval(
    () => void refreshSigner(deps, logger).catch(() => undefined),
    deps.signer.refreshMs,
  );
  refresh.unref();
  const webhookJob = createWebhookJob(deps, {
    logger,
    pollMs: 200,
    maxInFlight: 64,
    perEndpoint: config.webhookEndpointConcurrency,
    leaseMs: 2 * config.webhookTimeoutMs + 2000,
    metrics: observability.metrics,
    tracer: observability.tracer,
  });
  const jobs: Job[] = observability.traceJobs([
    webhookJob,
    createClosePeriodsJob(deps),
    createIdempotencyCleanupJob(deps),
    createApprovalExpiryJob(deps),
    createApprovalRecoveryJob(deps),
    createRetentionJob(deps, config.retention, logger),
    createReceiptLogJob(deps, {
      intervalMs: config.logCheckpointIntervalMs,
      maxCheckpointsPerSecond: config.logMaxCheckpointsPerSecond,
      metrics: observability.metrics,
    }),
  ]);
  return {
    deps,
    app,
    store: deps.store,
    jobs,
    startDraining() {
      draining = true;
    },
    consoleSettings,
    metrics: observability.metrics,
    development,
    async close() {
      clearInterval(refresh);
      await app.close();
      await webhookJob.drain();
      await deps.webhooks.close();
      await deps.store.close();
      await observability.close();
    },
  };
}

/** Picks up a signing key another process rotated in, and says so once. */
async function refreshSigner(deps: Deps, logger: Logger | false): Promise<void> {
  const before = deps.signer.publishedKeys()[0]?.kid;
  await deps.signer.refresh();
  const after = deps.signer.publishedKeys()[0]?.kid;
  if (logger && after !== before)
    logger.info({ kid: after, previous: before }, 'receipt signing key picked up');
}
