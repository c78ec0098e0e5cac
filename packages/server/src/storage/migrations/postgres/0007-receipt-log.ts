/**
 * PostgreSQL 0007: the per-tenant receipt log (docs/adr/0009-receipt-log.md). Tiles of the Merkle tree
 * in C2SP tlog-tiles geometry (a partial tile is overwritten as it grows), the integrated size per
 * tenant, every checkpoint the service signed, witness cosignatures, the tenant's witness
 * requirement, and the service's sealed Ed25519 log key. Same shape in both dialects.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE receipt_log_state (
    tenant_id TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES tenants (id),
    tree_size BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE TABLE receipt_log_tiles (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    level INTEGER NOT NULL,
    tile_index BIGINT NOT NULL,
    hashes BYTEA NOT NULL,
    CONSTRAINT receipt_log_tiles_pkey PRIMARY KEY (tenant_id, level, tile_index)
  )`,
  `CREATE TABLE receipt_log_checkpoints (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    tree_size BIGINT NOT NULL,
    root_hash BYTEA NOT NULL,
    note TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CONSTRAINT receipt_log_checkpoints_pkey PRIMARY KEY (tenant_id, tree_size)
  )`,
  `CREATE TABLE receipt_log_cosignatures (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    tree_size BIGINT NOT NULL,
    witness_name TEXT COLLATE "C" NOT NULL,
    key_id_hex TEXT COLLATE "C" NOT NULL,
    witness_key TEXT NOT NULL,
    line TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CONSTRAINT receipt_log_cosignatures_pkey PRIMARY KEY (tenant_id, tree_size, key_id_hex, witness_name)
  )`,
  `CREATE TABLE receipt_log_witness_settings (
    tenant_id TEXT COLLATE "C" NOT NULL PRIMARY KEY REFERENCES tenants (id),
    witness_keys TEXT NOT NULL,
    required INTEGER NOT NULL,
    updated_at BIGINT NOT NULL
  )`,
  `CREATE TABLE receipt_log_keys (
    kid TEXT COLLATE "C" NOT NULL PRIMARY KEY,
    public_key_b64url TEXT NOT NULL,
    private_key_sealed TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
