import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { BillingSettings } from '../domain/billing/billing-settings.js';
import { loadBillingSettings } from './load-billing-config.js';
import { parseAllowNets } from '../domain/webhooks/address-policy.js';
import { readTrustProxy, type TrustProxy } from './read-trust-proxy.js';
import type { RetentionSettings } from '../domain/retention/retention-settings.js';
import { developmentOrigin } from './development-origin.js';
import { readSecretFiles } from './secret-files.js';

/** The environment the service reads: one schema, parsed once, here and nowhere else. */
export const Env = Type.Object({
  NODE_ENV: Type.Optional(Type.String()),
  HOST: Type.String({ default: 'localhost' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  DATABASE_URL: Type.Optional(Type.String({ pattern: '^postgres(ql)?://' })),
  PRESENCE_DATA_DIR: Type.String({ default: './data' }),
  PRESENCE_MASTER_KEY: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
  PRESENCE_DEV_TENANT: Type.Optional(Type.Boolean()),
  PRESENCE_MIGRATE_ON_START: Type.Boolean({ default: true }),
  PRESENCE_STORE_GUARD: Type.Optional(Type.Boolean()),
  PRESENCE_DEV_ORIGIN: Type.Optional(Type.String()),
  PRESENCE_CONSOLE_ORIGIN: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+$' })),
  /** Origin of the hosted approval and enrollment pages (and the console); default the console origin. */
  PRESENCE_PUBLIC_ORIGIN: Type.Optional(Type.String({ pattern: '^https?://[^/?#]+$' })),
  PRESENCE_CONSOLE_IDLE_MINUTES: Type.Integer({ minimum: 1, maximum: 24 * 60, default: 30 }),
  PRESENCE_CONSOLE_SESSION_HOURS: Type.Integer({ minimum: 1, maximum: 24 * 30, default: 12 }),
  PRESENCE_BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, maximum: 16 * 1024 * 1024, default: 1024 * 1024 }),
  PRESENCE_PG_POOL_SIZE: Type.Integer({ minimum: 1, maximum: 200, default: 10 }),
  PRESENCE_TRUST_PROXY: Type.Optional(Type.String()),
  PRESENCE_RATE_LIMIT_PER_MINUTE: Type.Integer({ minimum: 0, default: 6000 }),
  PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: Type.Integer({ minimum: 0, default: 20_000 }),
  PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: Type.Integer({ minimum: 0, default: 120 }),
  PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE: Type.Integer({ minimum: 0, default: 30 }),
  PRESENCE_RATE_LIMIT_SIGN_IN_TOTAL_PER_MINUTE: Type.Integer({ minimum: 0, default: 600 }),
  /** Requests per minute per address to the keyless approval and enrollment link routes. */
  PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: Type.Integer({ minimum: 0, default: 120 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  PRESENCE_REDIS_PREFIX: Type.String({ pattern: '^[A-Za-z0-9:_-]{1,64}$', default: 'presence' }),
  PRESENCE_METRICS_TOKEN: Type.Optional(
    Type.String({ minLength: 32, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' }),
  ),
  PRESENCE_METRICS_LISTEN: Type.Optional(
    Type.String({ pattern: '^(\\[[0-9a-fA-F:]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$' }),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String({ pattern: '^https?://' })),
  OTEL_SERVICE_NAME: Type.String({ minLength: 1, default: 'presence' }),
  PRESENCE_TRACE_JOBS: Type.Boolean({ default: false }),
  PRESENCE_BILLING_DEFAULT_PLAN_FILE: Type.Optional(Type.String()),
  PRESENCE_BILLING_CLOSE_GRACE_HOURS: Type.Integer({ minimum: 0, maximum: 24 * 28, default: 48 }),
  PRESENCE_ADMIN_TOKEN: Type.Optional(
    Type.String({ minLength: 32, maxLength: 512, pattern: '^[\\x21-\\x7e]+$' }),
  ),
  PRESENCE_WEBHOOK_ALLOW_NETS: Type.Optional(Type.String()),
  PRESENCE_SIGNING_KEY_REFRESH_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
  PRESENCE_WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
  PRESENCE_WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({ minimum: 1, maximum: 100, default: 8 }),
  PRESENCE_MASTER_KEY_PREVIOUS: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9_-]{43}$' })),
  PRESENCE_PG_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 100, maximum: 120_000, default: 5000 }),
  PRESENCE_SQLITE_BUSY_TIMEOUT_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 5000 }),
  PRESENCE_SHUTDOWN_DELAY_MS: Type.Integer({ minimum: 0, maximum: 120_000, default: 0 }),
  PRESENCE_SHUTDOWN_DRAIN_MS: Type.Integer({ minimum: 0, maximum: 600_000, default: 15_000 }),
  PRESENCE_RETENTION_EVENTS_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 30 }),
  PRESENCE_RETENTION_DELIVERIES_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 30 }),
  PRESENCE_RETENTION_CHALLENGES_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 30 }),
  PRESENCE_RETENTION_APPROVALS_DAYS: Type.Integer({ minimum: 0, maximum: 36_500, default: 90 }),
  PRESENCE_RETENTION_BATCH_SIZE: Type.Integer({ minimum: 1, maximum: 10_000, default: 500 }),
  PRESENCE_LOG_ORIGIN: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, pattern: '^[\\x21-\\x7e]*[^/\\s]$' }),
  ),
  PRESENCE_LOG_CHECKPOINT_INTERVAL_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: 500 }),
  PRESENCE_LOG_MAX_CHECKPOINTS_PER_SECOND: Type.Integer({ minimum: 1, maximum: 10_000, default: 50 }),
  PRESENCE_EXPORT_HEAP_GROWTH_MB: Type.Integer({ minimum: 0, maximum: 4096, default: 16 }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
  PRESENCE_LOG_FORMAT: Type.Union(
    ['auto', 'json', 'pretty'].map((f) => Type.Literal(f)),
    { default: 'auto' },
  ),
});

export interface Config {
  production: boolean;
  host: string;
  port: number;
  databaseUrl: string | undefined;
  dataDir: string;
  sqlitePath: string;
  /** 32 bytes that seal secrets at rest and key the cursor MACs. */
  masterKey: Buffer;
  /** Where the master key came from, for the start-up log line. */
  masterKeySource: 'environment' | 'development key file';
  devTenant: boolean;
  /** Apply pending migrations at start (default); false: refuse to start on a schema that is behind. */
  migrateOnStart: boolean;
  devOrigin: string;
  /** Public origin of the tenant console (invite links, passkey origin); defaults to devOrigin. */
  consoleOrigin: string;
  /** Origin of approval and enrollment links: PRESENCE_PUBLIC_ORIGIN, else the console origin. */
  publicOrigin: string;
  consoleIdleMs: number;
  consoleSessionMs: number;
  bodyLimitBytes: number;
  pgPoolSize: number;
  /** Which proxies may name the client in X-Forwarded-For (config/read-trust-proxy.ts). */
  trustProxy: TrustProxy;
  /**
   * Requests per minute: per API key, per tenant (all its keys), per client address failing auth
   * (401/403), per client address and for all addresses together starting or finishing an
   * anonymous console sign-in. 0 = off.
   */
  rateLimits: {
    perKey: number;
    perTenant: number;
    failedAuthPerAddress: number;
    signInPerAddress: number;
    signInTotal: number;
    /** Keyless approval and enrollment link routes (`/approve/…`, `/enroll/…`), per client address. */
    linksPerAddress: number;
  };
  /** Set → limits are shared by every instance through Redis; unset → held in process. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key this service writes. */
  redisPrefix: string;
  /** Set → GET /metrics on the public port, behind `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** Set → Prometheus metrics on their own listener (host and port), without a token. */
  metricsListen: { host: string; port: number } | undefined;
  /** Set → OpenTelemetry traces exported over OTLP/HTTP to this base URL. */
  otlpEndpoint: string | undefined;
  serviceName: string;
  /** Trace the background jobs' polls too (off: only requests and what they cause are traced). */
  traceJobs: boolean;
  /** Default plan, scheduled-close grace window, operator token hash. */
  billing: BillingSettings;
  /** CIDRs webhooks may reach although private or reserved (development and tests). */
  webhookAllowNets: string[];
  /** Whole-attempt timeout of one webhook POST. */
  webhookTimeoutMs: number;
  /** Webhook attempts in flight per endpoint, across processes. */
  webhookEndpointConcurrency: number;
  /** The master key being rotated out: still opens sealed secrets until `presence master-key reseal`. */
  previousMasterKey: Buffer | undefined;
  pgConnectTimeoutMs: number;
  sqliteBusyTimeoutMs: number;
  /** SIGTERM: /readyz is 503 for `delayMs` before the listener closes; in-flight work gets `drainMs`. */
  shutdown: { delayMs: number; drainMs: number };
  retention: RetentionSettings;
  /** Origin prefix of receipt-log checkpoints: `<prefix>/presence/<tenantId>`. */
  logOrigin: string;
  /** How often new receipts are integrated into the logs and checkpoints signed. */
  logCheckpointIntervalMs: number;
  /** Checkpoints each process signs a second at most, over all tenants. */
  logMaxCheckpointsPerSecond: number;
  /** How often each process re-reads the signing-key table (ADR 0007); the same for every process. */
  signingKeyRefreshMs: number;
  /**
   * An export starts a full collection when the old generation and array buffers have grown this
   * much since the last one (ADR 0014); 0: never.
   */
  exportHeapGrowthBytes: number;
  logLevel: Static<typeof Env>['LOG_LEVEL'];
  /** `auto`: readable lines on a terminal outside production, JSON otherwise (logger.ts). */
  logFormat: Static<typeof Env>['PRESENCE_LOG_FORMAT'];
  /** Using the store inside its own transaction is an error (storage/transaction.ts); default: outside production. */
  transactionGuard: boolean;
}

export class ConfigError extends Error {}

export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const withFiles = readSecretFiles(source, (message) => new ConfigError(message));
  const raw = Object.fromEntries(Object.entries(withFiles).filter(([k]) => k in Env.properties));
  const converted = Value.Convert(Env, Value.Default(Env, raw));
  const errors = [...Value.Errors(Env, converted)];
  if (errors.length > 0) {
    throw new ConfigError(
      `invalid configuration: ${errors.map((e) => `${e.path.slice(1)} ${e.message}`).join('; ')}`,
    );
  }
  const env = converted as Static<typeof Env>;
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(env.PRESENCE_DATA_DIR);
  const master = readMasterKey(env.PRESENCE_MASTER_KEY, production, dataDir);
  const devTenant = env.PRESENCE_DEV_TENANT ?? !production;
  const devOrigin = env.PRESENCE_DEV_ORIGIN ?? developmentOrigin(env.HOST, env.PORT);
  return {
    production,
    host: env.HOST,
    port: env.PORT,
    databaseUrl: env.DATABASE_URL,
    dataDir,
    sqlitePath: join(dataDir, 'presence.sqlite'),
    masterKey: master.key,
    masterKeySource: master.source,
    devTenant,
    migrateOnStart: env.PRESENCE_MIGRATE_ON_START,
    devOrigin,
    consoleOrigin: env.PRESENCE_CONSOLE_ORIGIN ?? devOrigin,
    publicOrigin: env.PRESENCE_PUBLIC_ORIGIN ?? env.PRESENCE_CONSOLE_ORIGIN ?? devOrigin,
    consoleIdleMs: env.PRESENCE_CONSOLE_IDLE_MINUTES * 60_000,
    consoleSessionMs: env.PRESENCE_CONSOLE_SESSION_HOURS * 3600_000,
    bodyLimitBytes: env.PRESENCE_BODY_LIMIT_BYTES,
    pgPoolSize: env.PRESENCE_PG_POOL_SIZE,
    trustProxy: readSetting('PRESENCE_TRUST_PROXY', () => readTrustProxy(env.PRESENCE_TRUST_PROXY)),
    rateLimits: {
      perKey: env.PRESENCE_RATE_LIMIT_PER_MINUTE,
      perTenant: env.PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE,
      failedAuthPerAddress: env.PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE,
      signInPerAddress: env.PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE,
      signInTotal: env.PRESENCE_RATE_LIMIT_SIGN_IN_TOTAL_PER_MINUTE,
      linksPerAddress: env.PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE,
    },
    redisUrl: env.REDIS_URL,
    redisPrefix: env.PRESENCE_REDIS_PREFIX,
    metricsToken: env.PRESENCE_METRICS_TOKEN,
    metricsListen: readListen(env.PRESENCE_METRICS_LISTEN),
    otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
    serviceName: env.OTEL_SERVICE_NAME,
    traceJobs: env.PRESENCE_TRACE_JOBS,
    billing: loadBillingSettings(env, (message) => new ConfigError(message)),
    webhookAllowNets: readAllowNets(
      env.PRESENCE_WEBHOOK_ALLOW_NETS ?? (devTenant && !production ? DEV_ALLOW_NETS : ''),
    ),
    webhookTimeoutMs: env.PRESENCE_WEBHOOK_TIMEOUT_MS,
    webhookEndpointConcurrency: env.PRESENCE_WEBHOOK_ENDPOINT_CONCURRENCY,
    previousMasterKey: readPreviousMasterKey(env.PRESENCE_MASTER_KEY_PREVIOUS, master.key),
    pgConnectTimeoutMs: env.PRESENCE_PG_CONNECT_TIMEOUT_MS,
    sqliteBusyTimeoutMs: env.PRESENCE_SQLITE_BUSY_TIMEOUT_MS,
    shutdown: { delayMs: env.PRESENCE_SHUTDOWN_DELAY_MS, drainMs: env.PRESENCE_SHUTDOWN_DRAIN_MS },
    retention: {
      eventsDays: env.PRESENCE_RETENTION_EVENTS_DAYS,
      deliveriesDays: env.PRESENCE_RETENTION_DELIVERIES_DAYS,
      challengesDays: env.PRESENCE_RETENTION_CHALLENGES_DAYS,
      approvalsDays: env.PRESENCE_RETENTION_APPROVALS_DAYS,
      batchSize: env.PRESENCE_RETENTION_BATCH_SIZE,
    },
    logOrigin: env.PRESENCE_LOG_ORIGIN ?? env.HOST,
    logCheckpointIntervalMs: env.PRESENCE_LOG_CHECKPOINT_INTERVAL_MS,
    logMaxCheckpointsPerSecond: env.PRESENCE_LOG_MAX_CHECKPOINTS_PER_SECOND,
    signingKeyRefreshMs: env.PRESENCE_SIGNING_KEY_REFRESH_MS,
    exportHeapGrowthBytes: env.PRESENCE_EXPORT_HEAP_GROWTH_MB * 1024 * 1024,
    logLevel: env.LOG_LEVEL,
    logFormat: env.PRESENCE_LOG_FORMAT,
    transactionGuard: env.PRESENCE_STORE_GUARD ?? !production,
  };
}

/**
 * Unset PRESENCE_WEBHOOK_ALLOW_NETS with the development tenant on outside production: loopback
 * receivers are reachable, so `npm start` can deliver to a receiver on the same machine. In
 * production (or when the variable is set, even empty) only what it lists is allowed.
 */
export const DEV_ALLOW_NETS = '127.0.0.0/8,::1/128';

/** `host:port` (IPv6 in brackets) → its parts. */
function readListen(value: string | undefined): Config['metricsListen'] {
  if (value === undefined) return undefined;
  const colon = value.lastIndexOf(':');
  const port = Number(value.slice(colon + 1));
  if (port > 65535) throw new ConfigError(`PRESENCE_METRICS_LISTEN: port ${port} is out of range`);
  return { host: value.slice(0, colon).replace(/^\[(.*)\]$/, '$1'), port };
}

/** A setting read by `read`, whose error stops start-up naming the variable. */
function readSetting<T>(name: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`);
  }
}

/** Comma-separated CIDRs; a malformed one stops start-up rather than silently allowing nothing. */
function readAllowNets(value: string): string[] {
  const nets = value
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  try {
    parseAllowNets(nets);
  } catch (error) {
    throw new ConfigError(`PRESENCE_WEBHOOK_ALLOW_NETS: ${(error as Error).message}`);
  }
  return nets;
}

function readPreviousMasterKey(value: string | undefined, current: Buffer): Buffer | undefined {
  if (value === undefined) return undefined;
  const key = Buffer.from(value, 'base64url');
  if (key.equals(current)) throw new ConfigError('PRESENCE_MASTER_KEY_PREVIOUS equals PRESENCE_MASTER_KEY');
  return key;
}

/**
 * Production requires PRESENCE_MASTER_KEY (32 bytes, base64url). For development only, a key
 * is generated once into the data directory (mode 0600) so `npm start` works with no setup.
 */
function readMasterKey(
  value: string | undefined,
  production: boolean,
  dataDir: string,
): { key: Buffer; source: Config['masterKeySource'] } {
  if (value !== undefined) return { key: Buffer.from(value, 'base64url'), source: 'environment' };
  if (production) throw new ConfigError('PRESENCE_MASTER_KEY is required when NODE_ENV=production');
  const file = join(dataDir, 'master.key');
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64url');
  if (key.length !== 32) throw new ConfigError(`${file} does not hold a 32-byte base64url key`);
  return { key, source: 'development key file' };
}
