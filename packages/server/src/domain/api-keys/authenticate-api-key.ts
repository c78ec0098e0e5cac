import type { Deps } from '../deps.js';
import type { ApiKeyRecord } from '../ports.js';
import { hashKeySecret, isWellFormedKeySecret } from './api-key-secret.js';

/** How stale `lastUsedAt` may get before a request writes it again. */
const TOUCH_INTERVAL_MS = 60_000;

/** Returns the active key for a presented secret, or undefined (unknown, revoked or expired). */
export async function authenticateApiKey(
  deps: Pick<Deps, 'store' | 'clock'>,
  presented: string,
): Promise<ApiKeyRecord | undefined> {
  if (!isWellFormedKeySecret(presented)) return undefined;
  const key = await deps.store.apiKeys.findByHash(hashKeySecret(presented));
  if (!key) return undefined;
  const now = deps.clock.now();
  if (key.revokedAt !== null && key.revokedAt <= now) return undefined;
  if (key.expiresAt !== null && key.expiresAt <= now) return undefined;
  if (key.lastUsedAt === null || now - key.lastUsedAt > TOUCH_INTERVAL_MS) {
    await deps.store.apiKeys.touch(key.id, now);
  }
  return key;
}
