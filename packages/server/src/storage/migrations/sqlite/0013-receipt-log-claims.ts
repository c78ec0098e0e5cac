/**
 * SQLite 0013: the lease column of PostgreSQL 0013 (`receipt_log_state.claimed_until`, epoch ms,
 * null when none), so both dialects keep the same shape. On SQLite no lease is taken: one process
 * owns the database, and its receipt-log job has no other process to share the due logs with.
 * docs/adr/0009-receipt-log.md.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

export async function up(db: QueryExecutorProvider): Promise<void> {
  await sql.raw(`ALTER TABLE receipt_log_state ADD COLUMN claimed_until INTEGER`).execute(db);
}
