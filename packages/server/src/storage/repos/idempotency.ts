import type { Kysely } from 'kysely';
import type { IdempotencyRecord, IdempotencyRepo } from '../../domain/idempotency/ports.js';
import type { Database, IdempotencyKeysTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny } from './rows.js';

export function createIdempotencyRepo(db: Kysely<Database>): IdempotencyRepo {
  return {
    async insert(r) {
      await mapUniqueViolation(() => db.insertInto('idempotency_keys').values(toRow(r)).execute());
    },
    async get(tenantId, key) {
      const row = await db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async saveResponse(tenantId, key, statusCode, responseSealed) {
      const result = await db
        .updateTable('idempotency_keys')
        .set({ status_code: statusCode, response_sealed: responseSealed })
        .where('tenant_id', '=', tenantId)
        .where('idempotency_key', '=', key)
        .executeTakeFirst();
      return changedAny(result);
    },
    /**
     * Batches by time: the cutoff is the expiry of the `limit`-th oldest expired row, so one call
     * deletes about `limit` rows (ties may add a few) with one portable statement.
     */
    async deleteExpired(now, limit) {
      const nth = await db
        .selectFrom('idempotency_keys')
        .select('expires_at')
        .where('expires_at', '<=', now)
        .orderBy('expires_at')
        .limit(1)
        .offset(limit - 1)
        .executeTakeFirst();
      const result = await db
        .deleteFrom('idempotency_keys')
        .where('expires_at', '<=', nth?.expires_at ?? now)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}

function toRow(r: IdempotencyRecord): IdempotencyKeysTable {
  return {
    tenant_id: r.tenantId,
    idempotency_key: r.key,
    fingerprint_hex: r.fingerprintHex,
    method: r.method,
    route: r.route,
    status_code: r.statusCode,
    response_sealed: r.responseSealed,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
  };
}

function toRecord(row: IdempotencyKeysTable): IdempotencyRecord {
  return {
    tenantId: row.tenant_id,
    key: row.idempotency_key,
    fingerprintHex: row.fingerprint_hex,
    method: row.method,
    route: row.route,
    statusCode: row.status_code,
    responseSealed: row.response_sealed,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}
