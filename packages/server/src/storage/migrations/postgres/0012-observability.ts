/**
 * PostgreSQL 0012: an index for the metrics' "oldest undelivered event" (pending deliveries by
 * creation time, so the scrape reads one index entry instead of sorting the whole backlog), and
 * the W3C traceparent of the request that recorded an outbox event (null when tracing is off),
 * so its webhook attempts continue that trace. Same shape in both dialects.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

export async function up(db: QueryExecutorProvider): Promise<void> {
  await sql.raw(`ALTER TABLE outbox_events ADD COLUMN trace_parent TEXT`).execute(db);
  await sql
    .raw(
      `CREATE INDEX webhook_deliveries_pending_created_idx ON webhook_deliveries (created_at) WHERE status = 'pending'`,
    )
    .execute(db);
}
