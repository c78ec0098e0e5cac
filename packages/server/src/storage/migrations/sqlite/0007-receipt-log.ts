/**
 * SQLite 0007: the per-tenant receipt log (docs/adr/0009-receipt-log.md). Tiles of the Merkle tree
 * in C2SP tlog-tiles geometry (a partial tile is overwritten as it grows), the integrated size per
 * tenant, every checkpoint the service signed, witness cosignatures, the tenant's witness
 * requirement, and the service's sealed Ed25519 log key. Same shape in both dialects.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE receipt_log_state (
    tenant_id TEXT NOT NULL PRIMARY KEY REFERENCES tenants (id),
    tree_size INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE TABLE receipt_log_tiles (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    level INTEGER NOT NULL,
    tile_index INTEGER NOT NULL,
    hashes BLOB NOT NULL,
    CONSTRAINT receipt_log_tiles_pkey PRIMARY KEY (tenant_id, level, tile_index)
  ) STRICT`,
  `CREATE TABLE receipt_log_checkpoints (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    tree_size INTEGER NOT NULL,
    root_hash BLOB NOT NULL,
    note TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT receipt_log_checkpoints_pkey PRIMARY KEY (tenant_id, tree_size)
  ) STRICT`,
  `CREATE TABLE receipt_log_cosignatures (
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    tree_size INTEGER NOT NULL,
    witness_name TEXT NOT NULL,
    key_id_hex TEXT NOT NULL,
    witness_key TEXT NOT NULL,
    line TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT receipt_log_cosignatures_pkey PRIMARY KEY (tenant_id, tree_size, key_id_hex, witness_name)
  ) STRICT`,
  `CREATE TABLE receipt_log_witness_settings (
    tenant_id TEXT NOT NULL PRIMARY KEY REFERENCES tenants (id),
    witness_keys TEXT NOT NULL,
    required INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE TABLE receipt_log_keys (
    kid TEXT NOT NULL PRIMARY KEY,
    public_key_b64url TEXT NOT NULL,
    private_key_sealed TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
