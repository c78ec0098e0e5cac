import type { AuditActorType } from '@presence/contract';
import type { Kysely } from 'kysely';
import type { AuditEventRecord, AuditEventRepo } from '../../domain/audit/ports.js';
import type { AuditEventsTable, Database } from '../schema.js';
import { parseJson } from './rows.js';

/** The audit log of every door (domain/audit): the same queries in both dialects. */
export function createAuditEventRepo(db: Kysely<Database>): AuditEventRepo {
  return {
    insert: async (e) => void (await db.insertInto('audit_events').values(toRow(e)).execute()),
    list: async (tenantId, filter, page) => {
      let query = db
        .selectFrom('audit_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('id', 'desc')
        .limit(page.limit);
      if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
      if (filter.from !== undefined) query = query.where('at', '>=', filter.from);
      if (filter.to !== undefined) query = query.where('at', '<', filter.to);
      if (filter.actorType !== undefined) query = query.where('actor_type', '=', filter.actorType);
      if (filter.action !== undefined) query = query.where('action', '=', filter.action);
      return (await query.execute()).map(toRecord);
    },
  };
}

function toRow(e: AuditEventRecord): AuditEventsTable {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    at: e.at,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_name: e.actor.name,
    action: e.action,
    target_type: e.target.type,
    target_id: e.target.id,
    target_name: e.target.name ?? null,
    approval_id: e.approvalId,
    receipt_id: e.receiptId,
    receipt_hash_hex: e.receiptHashHex,
    request_id: e.requestId,
    detail: JSON.stringify(e.detail),
  };
}

function toRecord(row: AuditEventsTable): AuditEventRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    at: Number(row.at),
    actor: { type: row.actor_type as AuditActorType, id: row.actor_id, name: row.actor_name },
    action: row.action,
    target: {
      type: row.target_type,
      id: row.target_id,
      ...(row.target_name === null ? {} : { name: row.target_name }),
    },
    approvalId: row.approval_id,
    receiptId: row.receipt_id,
    receiptHashHex: row.receipt_hash_hex,
    requestId: row.request_id,
    detail: parseJson<Record<string, unknown>>(row.detail),
  };
}
