import type { Kysely } from 'kysely';
import type { ExportRecord, ExportRepo, ExportStatus } from '../../domain/exports/ports.js';
import type { Database, ExportsTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, parseJson } from './rows.js';

export function createExportRepo(db: Kysely<Database>): ExportRepo {
  return {
    async insert(e) {
      await mapUniqueViolation(() => db.insertInto('exports').values(toRow(e)).execute());
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('exports')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toExport(row);
    },
    /** Guarded by status = 'running': an export ends once. */
    async finish(tenantId, id, f) {
      const result = await db
        .updateTable('exports')
        .set({
          status: f.status,
          receipt_count: f.receiptCount,
          manifest_sha256: f.manifestSha256,
          kid: f.kid,
          finished_at: f.finishedAt,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('status', '=', 'running')
        .executeTakeFirst();
      return changedAny(result);
    },
  };
}

function toRow(e: ExportRecord): ExportsTable {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    api_key_id: e.apiKeyId,
    status: e.status,
    range_from: e.rangeFrom,
    range_to: e.rangeTo,
    filters: JSON.stringify(e.filters),
    snapshot_seq: e.snapshotSeq,
    receipt_count: e.receiptCount,
    manifest_sha256: e.manifestSha256,
    kid: e.kid,
    created_at: e.createdAt,
    finished_at: e.finishedAt,
  };
}

function toExport(row: ExportsTable): ExportRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    apiKeyId: row.api_key_id,
    status: row.status as ExportStatus,
    rangeFrom: row.range_from,
    rangeTo: row.range_to,
    filters: parseJson<Record<string, string>>(row.filters),
    snapshotSeq: row.snapshot_seq,
    receiptCount: row.receipt_count,
    manifestSha256: row.manifest_sha256,
    kid: row.kid,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
  };
}
