/** The console's approvers setting and its changes awaiting approval (migration 0018), both dialects. */
import type { Kysely } from 'kysely';
import type { ConsoleChangeRecord, ConsoleChangeStatus, ConsoleRepos } from '../../domain/console/ports.js';
import type { Database } from '../schema.js';
import type { ConsoleChangesTable } from '../schema-console-changes.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, parseJson } from './rows.js';

export function createConsoleChangeRepo(db: Kysely<Database>): ConsoleRepos['changes'] {
  return {
    insert: async (c) =>
      void (await mapUniqueViolation(() => db.insertInto('console_changes').values(toRow(c)).execute())),
    get: async (tenantId, id) => {
      const row = await db
        .selectFrom('console_changes')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toChange(row);
    },
    list: async (tenantId, limit) =>
      (
        await db
          .selectFrom('console_changes')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .orderBy('id', 'desc')
          .limit(limit)
          .execute()
      ).map(toChange),
    transition: async (tenantId, id, from, to, at, by) =>
      changedAny(
        await db
          .updateTable('console_changes')
          .set({ status: to, updated_at: at, finished_by: by })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('status', '=', from)
          .executeTakeFirst(),
      ),
  };
}

export function createConsoleQuorumRepo(db: Kysely<Database>): ConsoleRepos['quorum'] {
  return {
    get: async (tenantId) => {
      const row = await db
        .selectFrom('console_settings')
        .select('approvers_required')
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return row && Number(row.approvers_required);
    },
    put: async (tenantId, required, at, by) =>
      void (await db
        .insertInto('console_settings')
        .values({ tenant_id: tenantId, approvers_required: required, updated_at: at, updated_by: by })
        .onConflict((oc) =>
          oc
            .column('tenant_id')
            .doUpdateSet({ approvers_required: required, updated_at: at, updated_by: by }),
        )
        .execute()),
  };
}

function toRow(c: ConsoleChangeRecord): ConsoleChangesTable {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    requester_id: c.requesterId,
    kind: c.kind,
    target: c.target,
    params: JSON.stringify(c.params),
    before_json: JSON.stringify(c.before),
    after_json: JSON.stringify(c.after),
    change_json: c.changeJson,
    approval_id: c.approvalId,
    approval_url_sealed: c.approvalUrlSealed,
    binding_code: c.bindingCode,
    required: c.required,
    status: c.status,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    finished_by: c.finishedBy,
  };
}

function toChange(row: ConsoleChangesTable): ConsoleChangeRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    requesterId: row.requester_id,
    kind: row.kind,
    target: row.target,
    params: parseJson(row.params),
    before: parseJson(row.before_json),
    after: parseJson(row.after_json),
    changeJson: row.change_json,
    approvalId: row.approval_id,
    approvalUrlSealed: row.approval_url_sealed,
    bindingCode: row.binding_code,
    required: Number(row.required),
    status: row.status as ConsoleChangeStatus,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    finishedBy: row.finished_by,
  };
}
