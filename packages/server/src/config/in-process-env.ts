import { randomBytes } from 'node:crypto';

/**
 * The settings of a service that a test suite or a bench starts in its own process: its own data
 * directory, a fresh master key, no development tenant and no rate limits (suites and benches call
 * faster than any limit allows). `extra` adds settings or overrides these.
 */
export function inProcessServiceEnv(
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_DEV_TENANT: 'false',
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
    ...extra,
  };
}
