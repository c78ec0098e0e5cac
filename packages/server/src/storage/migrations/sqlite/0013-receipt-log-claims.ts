/**
 * SQLite 0013: a lease on each receipt log's state row. The receipt-log job of a process claims
 * the logs it is about to checkpoint until `claimed_until` (epoch ms), so the job of another
 * process passes them by instead of repeating the work and losing the compare-and-set (a
 * checkpoint clears the lease; an abandoned one expires). Null: not claimed. Same shape in both
 * dialects; docs/adr/0009-receipt-log.md.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

export async function up(db: QueryExecutorProvider): Promise<void> {
  await sql.raw(`ALTER TABLE receipt_log_state ADD COLUMN claimed_until INTEGER`).execute(db);
}
