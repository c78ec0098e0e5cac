/**
 * PostgreSQL 0019: `api_keys.created_by_member_id`, the console member who created the key or, for
 * a rotation's successor, rotated it (null: made through the API, the CLI or the operator API, and
 * every key stored before this migration). Keys belong to the tenant; this only says whom to ask
 * when that member leaves or is demoted (docs/security.md#who-may-change-what-and-which-gate).
 * The partial index finds a member's keys without a scan. Same shape as SQLite 0019.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `ALTER TABLE api_keys ADD COLUMN created_by_member_id TEXT COLLATE "C"`,
  `CREATE INDEX api_keys_created_by_idx ON api_keys (tenant_id, created_by_member_id)
    WHERE created_by_member_id IS NOT NULL`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
