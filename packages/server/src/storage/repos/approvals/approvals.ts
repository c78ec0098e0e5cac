/** The `approvals` table: its columns, row mapper and statements (docs/approvals.md). */
import type { Kysely } from 'kysely';
import type { ApprovalStatus } from '@presence/contract';
import type { ApprovalRecord, ApprovalRepo } from '../../../domain/approvals/ports.js';
import type { ApprovalsTable, Database } from '../../schema.js';
import { mapUniqueViolation } from '../../unique-violation.js';
import { changedAny } from '../rows.js';

export function createApprovalRepo(db: Kysely<Database>): ApprovalRepo {
  return {
    async insert(a) {
      await mapUniqueViolation(() => db.insertInto('approvals').values(toRow(a)).execute());
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('approvals')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toApproval(row);
    },
    async getByTokenHash(tokenHash) {
      const row = await db
        .selectFrom('approvals')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toApproval(row);
    },
    async list(tenantId, filter, page) {
      let query = db.selectFrom('approvals').selectAll().where('tenant_id', '=', tenantId);
      if (filter.status !== undefined) query = query.where('status', '=', filter.status);
      if (page.afterId !== undefined) query = query.where('id', '<', page.afterId);
      const rows = await query.orderBy('id', 'desc').limit(page.limit).execute();
      return rows.map(toApproval);
    },
    async lockPending(tenantId, id, now) {
      const result = await db
        .updateTable('approvals')
        .set((eb) => ({ version: eb('version', '+', 1) }))
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return changedAny(result);
    },
    async finish(tenantId, id, status, at) {
      const result = await db
        .updateTable('approvals')
        .set((eb) => ({ status, decided_at: at, version: eb('version', '+', 1) }))
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return changedAny(result);
    },
    async listDueExpiries(now, limit) {
      const rows = await db
        .selectFrom('approvals')
        .select(['tenant_id', 'id'])
        .where('status', '=', 'pending')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(limit)
        .execute();
      return rows.map((r) => ({ tenantId: r.tenant_id, id: r.id }));
    },
    async findApprovedByAction(tenantId, actionHashHex) {
      const row = await db
        .selectFrom('approvals')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('action_hash_hex', '=', actionHashHex)
        .where('status', '=', 'approved')
        .orderBy('id')
        .executeTakeFirst();
      return row && toApproval(row);
    },
  };
}

function toRow(a: ApprovalRecord): ApprovalsTable {
  return {
    id: a.id,
    tenant_id: a.tenantId,
    action_json: a.actionJson,
    action_hash_hex: a.actionHashHex,
    title: a.title,
    required: a.required,
    initiator: a.initiator,
    purpose: a.purpose,
    status: a.status,
    token_hash: a.tokenHash,
    binding_code: a.bindingCode,
    version: a.version,
    created_at: a.createdAt,
    expires_at: a.expiresAt,
    decided_at: a.decidedAt,
  };
}

function toApproval(row: ApprovalsTable): ApprovalRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    actionJson: row.action_json,
    actionHashHex: row.action_hash_hex,
    title: row.title,
    required: Number(row.required),
    initiator: row.initiator,
    purpose: row.purpose,
    status: row.status as ApprovalStatus,
    tokenHash: row.token_hash,
    bindingCode: row.binding_code,
    version: Number(row.version),
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    decidedAt: row.decided_at === null ? null : Number(row.decided_at),
  };
}
