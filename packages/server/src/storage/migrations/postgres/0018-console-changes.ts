/**
 * PostgreSQL 0018: approvals of the console's dangerous changes (docs/console.md#approvers-of-dangerous-changes).
 * `console_settings`: how many members must approve a tenant's dangerous console changes (1, 2
 * or 3; no row means 1). `console_changes`: one requested change awaiting its approval, with the
 * exact before and after its approvers were shown, until it is applied once or ends. Its approval
 * link is a capability: stored sealed with the master key, like webhook secrets. Same shape as
 * the SQLite migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE console_settings (
    tenant_id TEXT COLLATE "C" PRIMARY KEY REFERENCES tenants (id),
    approvers_required BIGINT NOT NULL CHECK (approvers_required BETWEEN 1 AND 3),
    updated_at BIGINT NOT NULL,
    updated_by TEXT
  )`,
  `CREATE TABLE console_changes (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    requester_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    target TEXT NOT NULL,
    params TEXT NOT NULL,
    before_json TEXT NOT NULL,
    after_json TEXT NOT NULL,
    change_json TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    approval_url_sealed TEXT NOT NULL,
    binding_code TEXT NOT NULL,
    required BIGINT NOT NULL,
    status TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    finished_by TEXT
  )`,
  `CREATE INDEX console_changes_tenant_idx ON console_changes (tenant_id, id)`,
  // Retention finds the changes that ended without being applied (storage/repos/retention.ts).
  `CREATE INDEX console_changes_finished_idx ON console_changes (updated_at)
    WHERE status IN ('stale', 'rejected', 'expired', 'cancelled')`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
