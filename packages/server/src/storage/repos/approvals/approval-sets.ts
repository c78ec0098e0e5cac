/** The `approval_sets` table: at most one signed approval set per approval (its primary key). */
import type { Kysely } from 'kysely';
import type { ApprovalSetRecord, ApprovalSetRepo } from '../../../domain/approvals/ports.js';
import type { ApprovalSetsTable, Database } from '../../schema.js';
import { mapUniqueViolation } from '../../unique-violation.js';

export function createApprovalSetRepo(db: Kysely<Database>): ApprovalSetRepo {
  return {
    async insert(s) {
      await mapUniqueViolation(() => db.insertInto('approval_sets').values(toRow(s)).execute());
    },
    async get(tenantId, approvalId) {
      const row = await db
        .selectFrom('approval_sets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('approval_id', '=', approvalId)
        .executeTakeFirst();
      return row && toSet(row);
    },
    async listDecided(tenantId, range, page) {
      let query = db
        .selectFrom('approval_sets')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('decided_at', '>=', range.from)
        .where('decided_at', '<', range.to);
      const after = page.after;
      if (after !== undefined) {
        query = query.where((eb) =>
          eb.or([
            eb('decided_at', '>', after.decidedAt),
            eb.and([eb('decided_at', '=', after.decidedAt), eb('approval_id', '>', after.approvalId)]),
          ]),
        );
      }
      const rows = await query.orderBy('decided_at').orderBy('approval_id').limit(page.limit).execute();
      return rows.map(toSet);
    },
  };
}

function toRow(s: ApprovalSetRecord): ApprovalSetsTable {
  return {
    approval_id: s.approvalId,
    tenant_id: s.tenantId,
    canonical_json: s.canonicalJson,
    hash_hex: s.hashHex,
    kid: s.kid,
    signature_b64url: s.signatureB64Url,
    decided_at: s.decidedAt,
  };
}

function toSet(row: ApprovalSetsTable): ApprovalSetRecord {
  return {
    approvalId: row.approval_id,
    tenantId: row.tenant_id,
    canonicalJson: row.canonical_json,
    hashHex: row.hash_hex,
    kid: row.kid,
    signatureB64Url: row.signature_b64url,
    decidedAt: Number(row.decided_at),
  };
}
