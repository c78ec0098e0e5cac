/**
 * PostgreSQL 0017: indexes the retention job prunes approvals by (docs/operations.md#retention), so each
 * batch finds approvals that ended without passing, used or expired enrollment links and lapsed
 * uniqueActions claims without a scan. Same shape as SQLite 0017.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE INDEX IF NOT EXISTS approvals_finished_idx ON approvals (decided_at) WHERE status IN ('expired', 'cancelled', 'rejected')`,
  `CREATE INDEX IF NOT EXISTS enrollment_links_expires_at_idx ON enrollment_links (expires_at)`,
  `CREATE INDEX IF NOT EXISTS unique_action_claims_held_until_idx ON unique_action_claims (held_until)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
