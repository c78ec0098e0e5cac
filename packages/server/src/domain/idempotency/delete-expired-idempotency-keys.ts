import type { Deps } from '../deps.js';

/** How long a key and its response are kept: retries within this window are replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes one batch of expired idempotency keys; true when a full batch went (there may be
 * more). Run by the `idempotency-cleanup` job.
 */
export async function deleteExpiredIdempotencyKeys(
  deps: Pick<Deps, 'store' | 'clock'>,
  batchSize = 1000,
): Promise<boolean> {
  const now = deps.clock.now();
  const deleted = await deps.store.transaction((tx) => tx.idempotency.deleteExpired(now, batchSize));
  return deleted >= batchSize;
}
