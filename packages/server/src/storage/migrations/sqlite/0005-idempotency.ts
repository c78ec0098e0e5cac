/**
 * SQLite 0005: idempotency keys. One row per (tenant, Idempotency-Key), inserted in the same
 * transaction as the change the request made, with the sealed response it answered; rows live
 * 24 h and a cleanup job deletes them by `expires_at`. Same shape as the PostgreSQL migration.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE idempotency_keys (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    idempotency_key TEXT NOT NULL,
    fingerprint_hex TEXT NOT NULL,
    method TEXT NOT NULL,
    route TEXT NOT NULL,
    status_code INTEGER,
    response_sealed TEXT,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, idempotency_key)
  ) STRICT`,
  `CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
