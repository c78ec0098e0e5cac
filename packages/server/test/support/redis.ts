/** The local Redis for the shared-limit suites: PRESENCE_TEST_REDIS_URL or 127.0.0.1:6379. */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export function testRedisUrl(): string {
  return process.env['PRESENCE_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
}

/** A key prefix no other run uses, so suites never share windows. */
export function testRedisPrefix(): string {
  return `presence-test-${randomBytes(6).toString('hex')}`;
}

/**
 * Whether Redis answers. In CI (CI=true) an unreachable Redis throws, so the suite fails
 * loudly; elsewhere it prints why and returns false, and the caller skips.
 */
export async function redisAvailable(suite: string): Promise<boolean> {
  const redis = new Redis(testRedisUrl(), {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
    return true;
  } catch (error) {
    const reason = `Redis at ${testRedisUrl()} is unreachable (${String(error)})`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it`, { cause: error });
    console.warn(`${suite} skipped: ${reason}. Start it or set PRESENCE_TEST_REDIS_URL.`);
    return false;
  } finally {
    redis.disconnect();
  }
}
