import { createHmac, randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import type { Deps } from './domain/deps.js';
import type { Clock, Random, Store } from './domain/ports.js';
import { loadReceiptSigner } from './domain/receipts/receipt-signer.js';
import { createSecretBox } from './domain/secrets.js';
import { PublicKeyCache } from './domain/webauthn/public-key-cache.js';
import { buildApp } from './http/app.js';
import type { App } from './http/types.js';
import { portal } from './portal/portal.js';
import { problemPages } from './portal/problem-pages.js';
import { consolePortal } from './portal/console/console-portal.js';
import { ensureDevTenant, printDevInvite } from './dev-tenant.js';
import type { ConsoleSettings } from './domain/console/console-settings.js';
import { DEFAULT_CONSOLE_TIMES } from './domain/console/console-settings.js';
import { consoleSettingsResolver, type ConsoleOptions } from './domain/console/resolve-console-settings.js';
import { migrateDatabase } from './storage/migrate-database.js';
import { openStore } from './storage/open-store.js';
import type { Job } from './worker/run-jobs.js';
import { createWebhookJob } from './worker/deliver-webhooks.js';
import { createWebhookTransport } from './worker/webhook-transport.js';
import { createClosePeriodsJob } from './worker/close-periods-job.js';
import { createIdempotencyCleanupJob } from './worker/idempotency-cleanup-job.js';
import { DEFAULT_BILLING_SETTINGS, type BillingSettings } from './domain/billing/billing-settings.js';

export const systemClock: Clock = { now: () => Date.now() };
export const cryptoRandom: Random = { bytes: (n) => randomBytes(n) };

export interface Composed {
  deps: Deps;
  app: App;
  store: Store;
  /** Background jobs (outbox delivery, schedulers); main.ts runs them with runJobs. */
  jobs: Job[];
  /** The console's settings; its internal tenant is made on first use. */
  consoleSettings(): Promise<ConsoleSettings>;
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
export async function composeDeps(config: Config): Promise<Deps> {
  const options = {
    databaseUrl: config.databaseUrl,
    sqlitePath: config.sqlitePath,
    pgPoolSize: config.pgPoolSize,
  };
  await migrateDatabase(options);
  return depsFromStore(
    await openStore(options),
    config.masterKey,
    systemClock,
    {
      allowNets: config.webhookAllowNets,
      timeoutMs: config.webhookTimeoutMs,
    },
    config.billing,
  );
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
): Promise<Deps> {
  const secrets = createSecretBox(deriveKey(masterKey, 'secrets-at-rest'), cryptoRandom);
  const signer = await loadReceiptSigner({ store, clock, secrets });
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
    webhooks,
    billing,
  };
}

/** The one place that knows every layer: storage → domain → http and portal. */
export async function compose(config: Config, logger: Logger | false): Promise<Composed> {
  return composeWith(await composeDeps(config), config, logger);
}

/** Builds the HTTP app (API and portal) around ready dependencies. */
export async function composeWith(deps: Deps, config: Config, logger: Logger | false): Promise<Composed> {
  const devTenantId = config.devTenant ? await ensureDevTenant(deps, config, logger) : undefined;
  const consoleSettings = consoleSettingsResolver(deps, consoleOptions(config));
  if (devTenantId !== undefined && logger !== false) {
    await printDevInvite(deps, consoleOptions(config), devTenantId);
  }
  const app = await buildApp(deps, {
    logger: logger === false ? false : logger,
    bodyLimitBytes: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    rateLimitPerMinute: config.rateLimitPerMinute,
    cursorKey: deriveKey(config.masterKey, 'cursor'),
    console: consoleOptions(config),
    plugins: [
      problemPages,
      portal({ demoTenantId: devTenantId }),
      consolePortal({ settings: consoleSettings, csrfKey: deriveKey(config.masterKey, 'console-csrf') }),
    ],
  });
  const refresh = setInterval(() => void deps.signer.refresh().catch(() => undefined), 60_000);
  refresh.unref();
  const webhookJob = createWebhookJob(deps, {
    logger,
    pollMs: 200,
    maxInFlight: 64,
    perEndpoint: config.webhookEndpointConcurrency,
    leaseMs: 2 * config.webhookTimeoutMs + 2000,
  });
  const jobs: Job[] = [webhookJob, createClosePeriodsJob(deps), createIdempotencyCleanupJob(deps)];
  return {
    deps,
    app,
    store: deps.store,
    jobs,
    consoleSettings,
    async close() {
      clearInterval(refresh);
      await app.close();
      await webhookJob.drain();
      await deps.webhooks.close();
      await deps.store.close();
    },
  };
}
