import type { Deps } from '../domain/deps.js';
import { expireApprovals } from '../domain/approvals/expire-approvals.js';
import { recoverApprovalDecisions } from '../domain/approvals/recover-approval-decisions.js';
import type { Job } from './run-jobs.js';

type ApprovalJobDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'signer' | 'approvalWaiters'>;

/** Settles expired approvals (status and `approval.expired` webhook) every few seconds. */
export function createApprovalExpiryJob(deps: ApprovalJobDeps): Job {
  return {
    name: 'approval-expiry',
    intervalMs: 5_000,
    run: () => expireApprovals(deps),
  };
}

/** Records ceremony decisions whose receipt outlived the request that should have recorded them. */
export function createApprovalRecoveryJob(deps: ApprovalJobDeps): Job {
  return {
    name: 'approval-recovery',
    intervalMs: 10_000,
    run: () => recoverApprovalDecisions(deps),
  };
}
