import type { Deps } from '../domain/deps.js';
import { closeDuePeriods } from '../domain/billing/close-due-periods.js';
import type { Job } from './run-jobs.js';

export const CLOSE_PERIODS_JOB = 'billing-close-periods';

/**
 * The scheduled period close: every few minutes, finalize the invoices of periods that ended
 * more than the grace window ago (PRESENCE_BILLING_CLOSE_GRACE_HOURS). Idempotent, so every
 * instance may run it; a batch that hit its limit runs again at once.
 */
export function createClosePeriodsJob(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'billing'>,
  intervalMs = 5 * 60_000,
): Job {
  return {
    name: CLOSE_PERIODS_JOB,
    intervalMs,
    run: async () => (await closeDuePeriods(deps)).more,
  };
}
