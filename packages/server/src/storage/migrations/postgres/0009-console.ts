/**
 * PostgreSQL 0009: the tenant console. Members (no names beyond a display name, no e-mail), single-use
 * invites and server-side sessions (both stored only as SHA-256 hashes of their secrets) and the
 * console audit log. Member passkeys are credentials of the console tenant (docs/adr/0011).
 * Same shape as the SQLite migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE console_members (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    display_name TEXT NOT NULL,
    role TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    removed_at BIGINT
  )`,
  `CREATE INDEX console_members_tenant_idx ON console_members (tenant_id, id)`,
  `CREATE TABLE console_invites (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
    role TEXT NOT NULL,
    member_id TEXT COLLATE "C" NOT NULL,
    created_by TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
  )`,
  `CREATE INDEX console_invites_tenant_idx ON console_invites (tenant_id, id)`,
  `CREATE TABLE console_sessions (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    member_id TEXT COLLATE "C" NOT NULL REFERENCES console_members (id),
    token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
  )`,
  `CREATE INDEX console_sessions_member_idx ON console_sessions (member_id)`,
  `CREATE TABLE console_audit (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    member_id TEXT,
    action TEXT NOT NULL,
    target TEXT,
    detail TEXT NOT NULL,
    receipt_id TEXT,
    receipt_hash_hex TEXT,
    created_at BIGINT NOT NULL
  )`,
  `CREATE INDEX console_audit_tenant_idx ON console_audit (tenant_id, id)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
