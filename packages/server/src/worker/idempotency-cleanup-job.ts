import type { Deps } from '../domain/deps.js';
import { deleteExpiredIdempotencyKeys } from '../domain/idempotency/delete-expired-idempotency-keys.js';
import type { Job } from './run-jobs.js';

/** Deletes idempotency keys past their 24 h, a batch at a time, every ten minutes. */
export function createIdempotencyCleanupJob(deps: Pick<Deps, 'store' | 'clock'>): Job {
  return {
    name: 'idempotency-cleanup',
    intervalMs: 10 * 60_000,
    run: () => deleteExpiredIdempotencyKeys(deps),
  };
}
