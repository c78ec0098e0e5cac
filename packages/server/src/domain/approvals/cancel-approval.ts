import type { Approval } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { recordEvent } from '../events/record-event.js';
import { viewOf } from './read-approval.js';
import type { ApprovalActor } from './create-approval.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';

type CancelDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'approvalWaiters' | 'audit'>;

/**
 * Cancels a pending approval: one compare-and-set with its `approval.cancelled` event in the same
 * transaction; 409 approval_not_pending otherwise (approved, rejected, expired or cancelled).
 */
export async function cancelApproval(
  deps: CancelDeps,
  tenantId: string,
  approvalId: string,
  actor: ApprovalActor,
): Promise<Approval> {
  const view = await deps.store.transaction(async (tx) => {
    const approval = await tx.approvals.approvals.get(tenantId, approvalId);
    if (!approval) throw notFound('the approval');
    const now = deps.clock.now();
    if (!(await tx.approvals.approvals.lockPending(tenantId, approvalId, now))) {
      // Read again: a concurrent cancel or decision may have ended it since the first read.
      const current = (await tx.approvals.approvals.get(tenantId, approvalId)) ?? approval;
      throw new DomainError(
        'approval_not_pending',
        `the approval is ${effective(current.status, current.expiresAt <= now)}; only a pending approval can be cancelled`,
      );
    }
    await tx.approvals.approvals.finish(tenantId, approvalId, 'cancelled', now);
    await tx.approvals.uniqueActions.release(tenantId, approval.actionHashHex, approval.id);
    const cancelled = await viewOf(deps, tx, { ...approval, status: 'cancelled', decidedAt: now });
    await recordEvent(deps, tx, tenantId, 'approval.cancelled', cancelled);
    const detail = { ...actor, actionHashHex: approval.actionHashHex };
    const audit = deps.audit && { ...deps.audit, approvalId };
    await recordAuditEvent({ ...deps, audit }, tx, {
      tenantId,
      action: 'approval.cancelled',
      target: { type: 'approval', id: approvalId, name: approval.title ?? undefined },
      detail,
    });
    return cancelled;
  });
  deps.approvalWaiters.signal(approvalId);
  return view;
}

function effective(status: string, expired: boolean): string {
  return status === 'pending' && expired ? 'expired' : status;
}
