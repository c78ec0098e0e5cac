/**
 * PostgreSQL 0005: idempotency keys. One row per (tenant, Idempotency-Key), inserted in the same
 * transaction as the change the request made, with the sealed response it answered; rows live
 * 24 h and a cleanup job deletes them by `expires_at`. A concurrent insert of the same key waits
 * on the primary key until the first transaction ends, then fails (or succeeds after a rollback).
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE idempotency_keys (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    idempotency_key TEXT COLLATE "C" NOT NULL,
    fingerprint_hex TEXT NOT NULL,
    method TEXT NOT NULL,
    route TEXT NOT NULL,
    status_code INTEGER,
    response_sealed TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    CONSTRAINT idempotency_keys_pkey PRIMARY KEY (tenant_id, idempotency_key)
  )`,
  `CREATE INDEX idempotency_keys_expires_at_idx ON idempotency_keys (expires_at)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
