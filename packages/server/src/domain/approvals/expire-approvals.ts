import type { Deps } from '../deps.js';
import { recordEvent } from '../events/record-event.js';
import { viewOf } from './read-approval.js';

/** Approvals settled per batch of the expiry job. */
export const EXPIRY_BATCH = 100;

type ExpireDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'approvalWaiters'>;

/**
 * Stores `expired` for pending approvals past their expiresAt, each with its `approval.expired`
 * event in the same transaction (readers already see them expired: approval-view.ts). A
 * compare-and-set, so instances running this job together settle each approval once, and a
 * decision that committed first wins. True when the batch was full (there may be more).
 */
export async function expireApprovals(deps: ExpireDeps): Promise<boolean> {
  const due = await deps.store.approvals.approvals.listDueExpiries(deps.clock.now(), EXPIRY_BATCH);
  for (const { tenantId, id } of due) {
    const expired = await deps.store.transaction(async (tx) => {
      const approval = await tx.approvals.approvals.get(tenantId, id);
      if (!approval || approval.status !== 'pending') return false;
      if (!(await tx.approvals.approvals.finish(tenantId, id, 'expired', approval.expiresAt))) return false;
      const view = await viewOf(deps, tx, { ...approval, status: 'expired', decidedAt: approval.expiresAt });
      await recordEvent(deps, tx, tenantId, 'approval.expired', view);
      return true;
    });
    if (expired) deps.approvalWaiters.signal(id);
  }
  return due.length === EXPIRY_BATCH;
}
