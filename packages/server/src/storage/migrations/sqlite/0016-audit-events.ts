/**
 * SQLite 0016: one audit log for every door (docs/api-contract.md#14-audit-events, domain/audit). The console audit rows
 * of 0009 are copied over in the new vocabulary, then that table goes: one source of audit
 * events. Also a partial index for the console's denied attempts and passkey names. Same shape as the
 * PostgreSQL migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';
import { copyConsoleAudit } from '../audit-events-copy.js';

const STATEMENTS = [
  `CREATE TABLE audit_events (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    at INTEGER NOT NULL,
    actor_type TEXT NOT NULL,
    actor_id TEXT NOT NULL,
    actor_name TEXT NOT NULL,
    action TEXT NOT NULL,
    target_type TEXT NOT NULL,
    target_id TEXT NOT NULL,
    target_name TEXT,
    approval_id TEXT,
    receipt_id TEXT,
    receipt_hash_hex TEXT,
    request_id TEXT,
    detail TEXT NOT NULL
  ) STRICT`,
  `CREATE INDEX audit_events_tenant_idx ON audit_events (tenant_id, id)`,
  copyConsoleAudit(
    `replace(a.action, '-', '_')`,
    `CASE WHEN instr(a.action, '.') > 0 THEN substr(a.action, 1, instr(a.action, '.') - 1) ELSE a.action END`,
  ),
  `DROP TABLE console_audit`,
  // What members call their console passkeys ("MacBook Touch ID"); the passkeys themselves are
  // credentials of the console tenant, so the name is kept beside them, keyed by credential ref.
  `CREATE TABLE console_passkey_names (
    credential_ref TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    member_id TEXT NOT NULL,
    name TEXT NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  // The console's denied attempts: a tenant's stored denials, newest first, without a scan.
  `CREATE INDEX challenges_denied_idx ON challenges (tenant_id, id)
    WHERE decision IS NOT NULL AND decision <> 'PRESENCE_VERIFIED'`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
