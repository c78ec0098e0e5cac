import type { Deps } from '../domain/deps.js';
import { expireApprovals } from '../domain/approvals/expire-approvals.js';
import type { Job } from './run-jobs.js';

/** Settles expired approvals (status and `approval.expired` webhook) every few seconds. */
export function createApprovalExpiryJob(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'approvalWaiters'>,
): Job {
  return {
    name: 'approval-expiry',
    intervalMs: 5_000,
    run: () => expireApprovals(deps),
  };
}
