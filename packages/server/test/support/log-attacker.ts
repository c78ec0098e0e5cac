/**
 * An attacker with full database access (but not the master key) against a tenant's receipt log:
 * raw SQL over its own connection, the way an operator with a psql or sqlite3 shell would do it.
 */
import { sql, type Kysely } from 'kysely';
import { openDatabase, type DatabaseHandle } from '../../src/storage/open-database.js';
import type { Database } from '../../src/storage/schema.js';
import type { TestService } from './test-service.js';

export interface LogAttacker {
  db: Kysely<Database>;
  /** Deletes the receipt of `seq` and renumbers the later ones down, as if it never existed. */
  eraseReceipt(seq: number): Promise<void>;
  /** Deletes the receipt row of `seq` only. */
  deleteReceiptRow(seq: number): Promise<void>;
  /** Replaces the stored hash of the receipt of `seq`. */
  setReceiptHash(seq: number, hashHex: string): Promise<void>;
  /** Wipes the tenant's log (tiles, checkpoints, cosignatures, size) so the service rebuilds it. */
  wipeLog(): Promise<void>;
  close(): Promise<void>;
}

export async function attackLog(s: TestService): Promise<LogAttacker> {
  const handle: DatabaseHandle = await openDatabase(s.testStore.options);
  const db = handle.db;
  const tenant = s.tenantId;
  return {
    db,
    async eraseReceipt(seq) {
      await db.deleteFrom('receipts').where('tenant_id', '=', tenant).where('seq', '=', seq).execute();
      const later = await db
        .selectFrom('receipts')
        .select('seq')
        .where('tenant_id', '=', tenant)
        .where('seq', '>', seq)
        .orderBy('seq')
        .execute();
      for (const r of later) {
        await db
          .updateTable('receipts')
          .set({ seq: Number(r.seq) - 1 })
          .where('tenant_id', '=', tenant)
          .where('seq', '=', Number(r.seq))
          .execute();
      }
      await db
        .updateTable('tenant_counters')
        .set({ value: sql<number>`value - 1` })
        .where('tenant_id', '=', tenant)
        .where('name', '=', 'receipts')
        .execute();
    },
    async deleteReceiptRow(seq) {
      await db.deleteFrom('receipts').where('tenant_id', '=', tenant).where('seq', '=', seq).execute();
    },
    async setReceiptHash(seq, hashHex) {
      await db
        .updateTable('receipts')
        .set({ hash_hex: hashHex })
        .where('tenant_id', '=', tenant)
        .where('seq', '=', seq)
        .execute();
    },
    async wipeLog() {
      for (const table of [
        'receipt_log_cosignatures',
        'receipt_log_checkpoints',
        'receipt_log_tiles',
        'receipt_log_state',
      ] as const) {
        await db.deleteFrom(table).where('tenant_id', '=', tenant).execute();
      }
    },
    close: () => db.destroy(),
  };
}
