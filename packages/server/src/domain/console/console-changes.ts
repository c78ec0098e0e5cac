import type { ApprovalStatus } from '@presence/contract';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { withoutAudit } from '../audit/with-audit.js';
import { effectiveStatus } from '../approvals/approval-view.js';
import { cancelApproval } from '../approvals/cancel-approval.js';
import { createApproval } from '../approvals/create-approval.js';
import { recordApprovalDecision } from '../approvals/record-approval-decision.js';
import type { Deps } from '../deps.js';
import { canonicalJson } from '../encoding.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import { changeAction, type ConsoleChange } from './approve-change.js';
import { sealChangeLink } from './change-link.js';
import { approverSubjects } from './console-quorum.js';
import { memberSubject, type ConsoleSettings } from './console-settings.js';
import type { ConsoleChangeRecord, ConsoleChangeStatus, MemberRecord } from './ports.js';

/** A console change waits a day for its approvers (the approval's longest life). */
export const CHANGE_APPROVAL_TTL_SECONDS = 86_400;

type ChangeSettings = Pick<ConsoleSettings, 'consoleTenantId' | 'origin'>;
type Receipt = { receiptId: string; receiptHashHex: string };

/**
 * Turns a change the requester's passkey just approved into an approval of that exact change in
 * the console tenant (its action is the change, so the action hash is the one the passkey signed
 * and the requester's receipt is its first approval), and records the request. The link goes to
 * the console's origin, where the members' passkeys work; it is stored sealed (change-link.ts).
 * The approval and the change's row are written in two transactions (the approval's own, then the
 * row with its audit event): when the second fails, the approval is cancelled, so no approval
 * waits for approvers with no change behind it.
 */
export async function openChangeRequest(
  deps: Deps,
  settings: ChangeSettings,
  change: ConsoleChange,
  requester: MemberRecord,
  receipt: Receipt,
  approvers: MemberRecord[],
  required: number,
): Promise<ConsoleChangeRecord> {
  const title = `${change.type} in ${change.tenantName}, asked by ${change.memberName}`.slice(0, 120);
  const created = await createApproval(
    withoutAudit(deps),
    settings.consoleTenantId,
    {
      action: changeAction(change),
      approvers: approverSubjects(approvers),
      required,
      title,
      expiresInSeconds: CHANGE_APPROVAL_TTL_SECONDS,
      purpose: `console: ${change.type}`,
    },
    { publicOrigin: settings.origin },
    { memberId: requester.id },
  );
  const approval = await deps.store.approvals.approvals.get(settings.consoleTenantId, created.approvalId);
  if (!approval) throw notFound('the approval just made');
  await recordApprovalDecision(deps, approval, 'approve', {
    subject: memberSubject(requester.id),
    ...receipt,
  });
  const now = deps.clock.now();
  const id = newId(deps, 'chg');
  const record: ConsoleChangeRecord = {
    id,
    tenantId: change.tenantId,
    requesterId: requester.id,
    kind: change.type,
    target: change.target,
    params: change.params,
    before: change.before,
    after: change.after,
    changeJson: canonicalJson(changeAction(change)),
    approvalId: approval.id,
    approvalUrlSealed: sealChangeLink(deps, id, created.approvalUrl),
    bindingCode: created.bindingCode,
    required,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    finishedBy: null,
  };
  try {
    await deps.store.transaction(async (tx) => {
      await tx.console.changes.insert(record);
      await recordAuditEvent(
        { ...deps, audit: deps.audit && { ...deps.audit, approvalId: approval.id } },
        tx,
        {
          tenantId: change.tenantId,
          action: 'console_change.requested',
          target: { type: 'console_change', id: record.id, name: change.type },
          detail: {
            kind: change.type,
            target: change.target,
            required,
            approvers: approvers.map((m) => m.id),
          },
        },
      );
    });
  } catch (error) {
    // No change row means nothing could apply it: its approval must not wait for approvers.
    await cancelApproval(withoutAudit(deps), settings.consoleTenantId, approval.id, {
      memberId: requester.id,
    }).catch(() => undefined); // then it expires as before; the error to report is the first one
    throw error;
  }
  return record;
}

/** The approval's state as the change's: a rejected, expired or cancelled approval ends its change. */
export async function refreshChange(
  deps: Pick<Deps, 'store' | 'clock'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  record: ConsoleChangeRecord,
): Promise<{ record: ConsoleChangeRecord; approval: ApprovalStatus; approved: number }> {
  const approval = await deps.store.approvals.approvals.get(settings.consoleTenantId, record.approvalId);
  if (!approval) throw notFound('the approval of this change');
  const now = deps.clock.now();
  const status = effectiveStatus(approval, now);
  const approvers = await deps.store.approvals.approvers.listFor(settings.consoleTenantId, [approval.id]);
  const approved = approvers.filter((a) => a.decision === 'approved').length;
  let current = record;
  if (
    record.status === 'pending' &&
    (status === 'rejected' || status === 'expired' || status === 'cancelled')
  ) {
    await deps.store.console.changes.transition(record.tenantId, record.id, 'pending', status, now, null);
    current = (await deps.store.console.changes.get(record.tenantId, record.id)) ?? record;
  }
  return { record: current, approval: status, approved };
}

/** Withdraws a pending change (its requester or an owner): its approval is cancelled too. */
export async function cancelChangeRequest(
  deps: Deps,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  member: MemberRecord,
  record: ConsoleChangeRecord,
): Promise<void> {
  if (member.id !== record.requesterId && member.role !== 'owner') {
    throw new DomainError('forbidden', 'only the member who asked for this change or an owner can cancel it');
  }
  const { approval } = await refreshChange(deps, settings, record);
  if (approval === 'pending') {
    await cancelApproval(withoutAudit(deps), settings.consoleTenantId, record.approvalId, {
      memberId: member.id,
    });
  }
  await finishChange(deps, record, 'cancelled', member, 'console_change.cancelled');
}

/**
 * Compare-and-set from pending, with its audit event: of concurrent calls exactly one wins; the
 * others get a 409 naming what the change became.
 */
export async function finishChange(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  record: ConsoleChangeRecord,
  to: ConsoleChangeStatus,
  member: MemberRecord | null,
  auditAction?: string,
  detail?: Record<string, unknown>,
): Promise<void> {
  const won = await deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const ok = await tx.console.changes.transition(
      record.tenantId,
      record.id,
      'pending',
      to,
      now,
      member?.id ?? null,
    );
    if (ok && auditAction) {
      await recordAuditEvent(
        { ...deps, audit: deps.audit && { ...deps.audit, approvalId: record.approvalId } },
        tx,
        {
          tenantId: record.tenantId,
          action: auditAction,
          target: { type: 'console_change', id: record.id, name: record.kind },
          detail: { kind: record.kind, target: record.target, ...detail },
        },
      );
    }
    return ok;
  });
  if (!won) {
    const now = await deps.store.console.changes.get(record.tenantId, record.id);
    throw new DomainError('conflict', `this change is already ${now?.status ?? 'gone'}; nothing was changed`);
  }
}
