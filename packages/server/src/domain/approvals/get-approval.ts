import type { Approval } from '@presence/contract';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import { effectiveStatus } from './approval-view.js';
import { viewOf } from './read-approval.js';

/** How often a long poll re-reads the row, to see decisions made by other instances. */
export const WAIT_POLL_MS = 1000;

type GetDeps = Pick<Deps, 'store' | 'clock' | 'approvalWaiters'>;

/**
 * One approval of the tenant. With `waitSeconds` > 0 and the approval pending, waits until its
 * status or a decision changes (or it expires, or the time is up), then answers: woken at once by
 * a decision in this process, within WAIT_POLL_MS by one on another instance (one indexed read).
 */
export async function getApproval(
  deps: GetDeps,
  tenantId: string,
  approvalId: string,
  waitSeconds = 0,
): Promise<Approval> {
  let approval = await deps.store.approvals.approvals.get(tenantId, approvalId);
  if (!approval) throw notFound('the approval');
  const deadline = deps.clock.now() + waitSeconds * 1000;
  const seen = approval.version;
  while (effectiveStatus(approval, deps.clock.now()) === 'pending' && approval.version === seen) {
    const now = deps.clock.now();
    const left = Math.min(deadline, approval.expiresAt) - now;
    if (left <= 0) break;
    await deps.approvalWaiters.wait(approvalId, Math.min(left, WAIT_POLL_MS));
    approval = (await deps.store.approvals.approvals.get(tenantId, approvalId)) ?? approval;
  }
  return viewOf(deps, deps.store, approval);
}
