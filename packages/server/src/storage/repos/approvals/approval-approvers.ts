/** The `approval_approvers` table: one row per approver, holding that approver's one decision. */
import type { Kysely } from 'kysely';
import type { ApproverDecision, ApproverRecord, ApproverRepo } from '../../../domain/approvals/ports.js';
import type { ApprovalApproversTable, Database } from '../../schema.js';
import { changedAny } from '../rows.js';

export function createApproverRepo(db: Kysely<Database>): ApproverRepo {
  return {
    async insertAll(approvers) {
      if (approvers.length === 0) return;
      await db.insertInto('approval_approvers').values(approvers.map(toRow)).execute();
    },
    async listFor(tenantId, approvalIds) {
      if (approvalIds.length === 0) return [];
      const rows = await db
        .selectFrom('approval_approvers')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('approval_id', 'in', approvalIds)
        .orderBy('approval_id')
        .orderBy('position')
        .execute();
      return rows.map(toApprover);
    },
    async decide(tenantId, approvalId, subject, d) {
      const result = await db
        .updateTable('approval_approvers')
        .set({
          decision: d.decision,
          receipt_id: d.receiptId,
          receipt_hash_hex: d.receiptHashHex,
          decided_at: d.at,
        })
        .where('tenant_id', '=', tenantId)
        .where('approval_id', '=', approvalId)
        .where('subject', '=', subject)
        .where('decision', 'is', null)
        .executeTakeFirst();
      return changedAny(result);
    },
  };
}

function toRow(a: ApproverRecord): ApprovalApproversTable {
  return {
    approval_id: a.approvalId,
    subject: a.subject,
    tenant_id: a.tenantId,
    position: a.position,
    decision: a.decision,
    receipt_id: a.receiptId,
    receipt_hash_hex: a.receiptHashHex,
    decided_at: a.decidedAt,
  };
}

function toApprover(row: ApprovalApproversTable): ApproverRecord {
  return {
    approvalId: row.approval_id,
    tenantId: row.tenant_id,
    subject: row.subject,
    position: Number(row.position),
    decision: row.decision as ApproverDecision | null,
    receiptId: row.receipt_id,
    receiptHashHex: row.receipt_hash_hex,
    decidedAt: row.decided_at === null ? null : Number(row.decided_at),
  };
}
