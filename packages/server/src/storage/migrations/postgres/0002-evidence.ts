/**
 * PostgreSQL 0002: evidence. Receipts get `seq`, a per-tenant, gap-free number assigned inside the
 * receipt's own transaction from `tenant_counters` (the counter row stays locked until commit, so
 * seq order is commit order): keyset paging on it neither repeats nor skips while receipts arrive.
 * Existing rows are numbered in (issued_at, id) order. `exports` keeps one audit row per export pack.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE tenant_counters (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    name TEXT COLLATE "C" NOT NULL,
    value BIGINT NOT NULL CHECK (value >= 0),
    CONSTRAINT tenant_counters_pkey PRIMARY KEY (tenant_id, name)
  )`,
  `ALTER TABLE receipts ADD COLUMN seq BIGINT`,
  `UPDATE receipts SET seq = numbered.n
    FROM (SELECT id, row_number() OVER (PARTITION BY tenant_id ORDER BY issued_at, id) AS n FROM receipts) AS numbered
    WHERE receipts.id = numbered.id`,
  `ALTER TABLE receipts ALTER COLUMN seq SET NOT NULL`,
  `ALTER TABLE receipts ADD CONSTRAINT receipts_seq_check CHECK (seq >= 1)`,
  `ALTER TABLE receipts ADD CONSTRAINT receipts_tenant_id_seq_key UNIQUE (tenant_id, seq)`,
  `DROP INDEX receipts_tenant_id_issued_at_id_idx`,
  `CREATE INDEX receipts_tenant_id_issued_at_seq_idx ON receipts (tenant_id, issued_at, seq)`,
  `CREATE INDEX receipts_tenant_id_subject_seq_idx ON receipts (tenant_id, subject, seq)`,
  `CREATE INDEX receipts_tenant_id_action_hash_hex_seq_idx ON receipts (tenant_id, action_hash_hex, seq)`,
  `CREATE INDEX receipts_tenant_id_credential_ref_seq_idx ON receipts (tenant_id, credential_ref, seq)`,
  `INSERT INTO tenant_counters (tenant_id, name, value)
    SELECT tenant_id, 'receipts', max(seq) FROM receipts GROUP BY tenant_id`,
  `CREATE TABLE exports (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT exports_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    api_key_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'aborted', 'failed')),
    range_from BIGINT NOT NULL,
    range_to BIGINT NOT NULL,
    filters TEXT NOT NULL,
    snapshot_seq BIGINT NOT NULL,
    receipt_count BIGINT NOT NULL,
    manifest_sha256 TEXT,
    kid TEXT,
    created_at BIGINT NOT NULL,
    finished_at BIGINT
  )`,
  `CREATE INDEX exports_tenant_id_id_idx ON exports (tenant_id, id)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
