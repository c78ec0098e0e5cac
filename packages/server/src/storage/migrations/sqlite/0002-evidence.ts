/**
 * SQLite 0002: evidence. Receipts get `seq`, a per-tenant, gap-free number assigned inside the
 * receipt's own transaction from `tenant_counters`, so seq order is commit order and keyset
 * paging on it neither repeats nor skips while receipts arrive. SQLite cannot add a NOT NULL
 * column without a default, so `receipts` is rebuilt (same constraint names) and existing rows are
 * numbered in (issued_at, id) order. `exports` keeps one audit row per export pack.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const RECEIPT_COLUMNS =
  'id, tenant_id, challenge_id, credential_ref, subject, action_hash_hex, issued_at, canonical_json, hash_hex, kid, signature_b64url';

const STATEMENTS = [
  `CREATE TABLE tenant_counters (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    value INTEGER NOT NULL CHECK (value >= 0),
    CONSTRAINT tenant_counters_pkey PRIMARY KEY (tenant_id, name)
  ) STRICT`,
  `CREATE TABLE receipts_0002 (
    id TEXT NOT NULL CONSTRAINT receipts_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    challenge_id TEXT NOT NULL REFERENCES challenges (id),
    credential_ref TEXT NOT NULL,
    subject TEXT NOT NULL,
    action_hash_hex TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    canonical_json TEXT NOT NULL,
    hash_hex TEXT NOT NULL,
    kid TEXT NOT NULL,
    signature_b64url TEXT NOT NULL,
    seq INTEGER NOT NULL CHECK (seq >= 1),
    CONSTRAINT receipts_tenant_id_challenge_id_key UNIQUE (tenant_id, challenge_id),
    CONSTRAINT receipts_tenant_id_seq_key UNIQUE (tenant_id, seq)
  ) STRICT`,
  `INSERT INTO receipts_0002 (${RECEIPT_COLUMNS}, seq)
    SELECT ${RECEIPT_COLUMNS}, row_number() OVER (PARTITION BY tenant_id ORDER BY issued_at, id)
    FROM receipts`,
  `DROP TABLE receipts`,
  `ALTER TABLE receipts_0002 RENAME TO receipts`,
  `CREATE INDEX receipts_tenant_id_issued_at_seq_idx ON receipts (tenant_id, issued_at, seq)`,
  `CREATE INDEX receipts_tenant_id_subject_seq_idx ON receipts (tenant_id, subject, seq)`,
  `CREATE INDEX receipts_tenant_id_action_hash_hex_seq_idx ON receipts (tenant_id, action_hash_hex, seq)`,
  `CREATE INDEX receipts_tenant_id_credential_ref_seq_idx ON receipts (tenant_id, credential_ref, seq)`,
  `INSERT INTO tenant_counters (tenant_id, name, value)
    SELECT tenant_id, 'receipts', max(seq) FROM receipts GROUP BY tenant_id`,
  `CREATE TABLE exports (
    id TEXT NOT NULL CONSTRAINT exports_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    api_key_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'aborted', 'failed')),
    range_from INTEGER NOT NULL,
    range_to INTEGER NOT NULL,
    filters TEXT NOT NULL,
    snapshot_seq INTEGER NOT NULL,
    receipt_count INTEGER NOT NULL,
    manifest_sha256 TEXT,
    kid TEXT,
    created_at INTEGER NOT NULL,
    finished_at INTEGER
  ) STRICT`,
  `CREATE INDEX exports_tenant_id_id_idx ON exports (tenant_id, id)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
