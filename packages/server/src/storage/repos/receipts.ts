import type { Kysely } from 'kysely';
import type { ReceiptRepo } from '../../domain/receipts/ports.js';
import type { Database } from '../schema.js';
import { toReceipt, toReceiptRow } from '../tables/receipts.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { nextCounterValue } from './tenant-counters.js';

export function createReceiptRepo(db: Kysely<Database>): ReceiptRepo {
  const ofTenant = (tenantId: string) =>
    db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId);
  return {
    /**
     * Takes the next seq from the tenant's counter row, then inserts. The upsert locks that row
     * until the transaction ends, so receipts of one tenant commit in seq order (SQLite serializes
     * writers anyway). Throws UniqueViolation (receipts_tenant_id_challenge_id_key) for a second
     * receipt of a challenge.
     */
    async insert(r) {
      const seq = await nextCounterValue(db, r.tenantId, 'receipts');
      await mapUniqueViolation(() => db.insertInto('receipts').values(toReceiptRow(r, seq)).execute());
      return seq;
    },
    async get(tenantId, id) {
      const row = await ofTenant(tenantId).where('id', '=', id).executeTakeFirst();
      return row && toReceipt(row);
    },
    async getByChallenge(tenantId, challengeId) {
      const row = await ofTenant(tenantId).where('challenge_id', '=', challengeId).executeTakeFirst();
      return row && toReceipt(row);
    },
  };
}
