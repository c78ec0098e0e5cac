/**
 * PostgreSQL 0010: indexes the retention job (worker/retention-job.ts) prunes by, so each batch finds
 * its rows without scanning: expired challenges and registrations, fanned-out events, completed
 * deliveries and old attempts, and the reverse lookups that keep referenced rows.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE INDEX IF NOT EXISTS challenges_expires_at_idx ON challenges (expires_at) WHERE receipt_id IS NULL`,
  `CREATE INDEX IF NOT EXISTS registrations_expires_at_idx ON registrations (expires_at)`,
  `CREATE INDEX IF NOT EXISTS credentials_registration_id_idx ON credentials (registration_id)`,
  `CREATE INDEX IF NOT EXISTS outbox_events_fanned_out_at_idx ON outbox_events (fanned_out_at) WHERE fanned_out_at IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_event_id_idx ON webhook_deliveries (event_id)`,
  `CREATE INDEX IF NOT EXISTS webhook_deliveries_completed_at_idx ON webhook_deliveries (completed_at) WHERE completed_at IS NOT NULL`,
  `CREATE INDEX IF NOT EXISTS webhook_attempts_started_at_idx ON webhook_attempts (started_at)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
