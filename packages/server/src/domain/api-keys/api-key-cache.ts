import { BoundedCache } from '../bounded-cache.js';
import type { Clock } from '../ports.js';
import type { ApiKeyRecord } from './ports.js';

/**
 * How long an authenticated API key may be served from memory. A revocation or an earlier expiry
 * made through this process takes effect at once (the entry is dropped); one made through another
 * process (another instance, the CLI) takes effect here within this time.
 */
export const API_KEY_CACHE_TTL_MS = 5_000;

/** API keys by the SHA-256 of their secret; only keys that exist are cached. */
export type ApiKeyCache = BoundedCache<ApiKeyRecord>;

export function createApiKeyCache(clock: Clock, maxEntries = 10_000): ApiKeyCache {
  return new BoundedCache<ApiKeyRecord>({ maxEntries, ttlMs: API_KEY_CACHE_TTL_MS, now: () => clock.now() });
}
