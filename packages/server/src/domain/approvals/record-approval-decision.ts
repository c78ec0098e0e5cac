import type { ApprovalIntent, ApprovalStatus } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { recordEvent } from '../events/record-event.js';
import type { StoreTx } from '../ports.js';
import { buildApprovalSet, sealApprovalSet } from './approval-set.js';
import type { ApprovalRecord, ApproverRecord } from './ports.js';
import { viewOf } from './read-approval.js';

type RecordDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'signer' | 'approvalWaiters'>;

export interface ApproverReceipt {
  subject: string;
  receiptId: string;
  receiptHashHex: string;
}

/**
 * Records one approver's decision, backed by their receipt, and settles the approval when it is
 * final (docs/api-contract.md#13-approvals): `approved` once `required` approvers approved, `rejected` once the
 * rejections leave too few to reach it. One transaction: it first locks the pending approval's row
 * (a compare-and-set that also refuses an expired one), so the decisions of one approval are
 * counted one at a time on any number of instances; the final status, the approval set and the
 * webhook event commit with the decision that caused them. Idempotent: the same receipt again
 * (a retried or recovered request) answers 'already-recorded' and writes nothing.
 */
export async function recordApprovalDecision(
  deps: RecordDeps,
  approval: ApprovalRecord,
  intent: ApprovalIntent,
  receipt: ApproverReceipt,
): Promise<'recorded' | 'already-recorded'> {
  return (await recordApprovalDecisionWithState(deps, approval, intent, receipt)).outcome;
}

export type RecordedDecision =
  | {
      outcome: 'recorded';
      /** The approval (status and decidedAt) and its approvers as the decision's transaction left them. */
      approval: ApprovalRecord;
      approvers: ApproverRecord[];
    }
  | { outcome: 'already-recorded' };

/** `recordApprovalDecision`, also answering the state its transaction committed (no re-read). */
export async function recordApprovalDecisionWithState(
  deps: RecordDeps,
  approval: ApprovalRecord,
  intent: ApprovalIntent,
  receipt: ApproverReceipt,
): Promise<RecordedDecision> {
  refuseIfNotApprover(approval, receipt);
  const decision = intent === 'approve' ? 'approved' : 'rejected';
  const { tenantId, id } = approval;
  if (decision === 'approved') await deps.signer.ensureFresh();
  const outcome = await deps.store.transaction(async (tx): Promise<RecordedDecision> => {
    const already = { outcome: 'already-recorded' } as const;
    const now = deps.clock.now();
    if (!(await tx.approvals.approvals.lockPending(tenantId, id, now))) {
      if (await alreadyRecorded(tx, approval, receipt)) return already;
      throw new DomainError(
        'approval_not_pending',
        notCountedDetail(receipt, 'the approval is no longer pending'),
      );
    }
    const d = {
      decision,
      receiptId: receipt.receiptId,
      receiptHashHex: receipt.receiptHashHex,
      at: now,
    } as const;
    if (!(await tx.approvals.approvers.decide(tenantId, id, receipt.subject, d))) {
      const approvers = await tx.approvals.approvers.listFor(tenantId, [id]);
      if (approvers.some((a) => a.receiptId === receipt.receiptId)) return already;
      const listed = approvers.some((a) => a.subject === receipt.subject);
      const why = listed ? 'already decided this approval' : 'is not an approver of this approval';
      throw new DomainError(
        'approval_decision_refused',
        notCountedDetail(receipt, `${receipt.subject} ${why}`),
      );
    }
    const approvers = await tx.approvals.approvers.listFor(tenantId, [id]);
    const final = finalStatus(approval.required, approvers);
    if (final === undefined) return { outcome: 'recorded', approval, approvers };
    await settle(deps, tx, approval, approvers, final, now);
    return { outcome: 'recorded', approval: { ...approval, status: final, decidedAt: now }, approvers };
  });
  deps.approvalWaiters.signal(id);
  return outcome;
}

/** The quorum rule of docs/api-contract.md#13-approvals, over every approver's current decision. */
export function finalStatus(
  required: number,
  approvers: Pick<ApproverRecord, 'decision'>[],
): ApprovalStatus | undefined {
  const approved = approvers.filter((a) => a.decision === 'approved').length;
  const rejected = approvers.filter((a) => a.decision === 'rejected').length;
  if (approved >= required) return 'approved';
  if (approvers.length - rejected < required) return 'rejected';
  return undefined;
}

async function settle(
  deps: RecordDeps,
  tx: StoreTx,
  approval: ApprovalRecord,
  approvers: ApproverRecord[],
  status: ApprovalStatus,
  now: number,
): Promise<void> {
  // We hold the row lock: this compare-and-set cannot lose, but it guards the rule all the same.
  if (!(await tx.approvals.approvals.finish(approval.tenantId, approval.id, status, now))) {
    throw new DomainError('approval_not_pending', 'the approval was decided concurrently');
  }
  if (status === 'approved') {
    await tx.approvals.sets.insert(sealApprovalSet(deps.signer, buildApprovalSet(approval, approvers, now)));
  } else {
    await tx.approvals.uniqueActions.release(approval.tenantId, approval.actionHashHex, approval.id);
  }
  const view = await viewOf(deps, tx, { ...approval, status, decidedAt: now });
  await recordEvent(
    deps,
    tx,
    approval.tenantId,
    status === 'approved' ? 'approval.approved' : 'approval.rejected',
    view,
  );
}

function refuseIfNotApprover(approval: ApprovalRecord, receipt: ApproverReceipt): void {
  if (receipt.subject === approval.initiator) {
    throw new DomainError(
      'approval_decision_refused',
      notCountedDetail(receipt, `${receipt.subject} is the initiator of this approval and cannot decide it`),
    );
  }
}

async function alreadyRecorded(
  tx: StoreTx,
  approval: ApprovalRecord,
  receipt: ApproverReceipt,
): Promise<boolean> {
  const approvers = await tx.approvals.approvers.listFor(approval.tenantId, [approval.id]);
  return approvers.some((a) => a.receiptId === receipt.receiptId);
}

function notCountedDetail(receipt: ApproverReceipt, why: string): string {
  return `${why}; receipt ${receipt.receiptId} stays valid evidence of this attempt but does not count`;
}
