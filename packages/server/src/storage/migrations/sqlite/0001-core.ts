/**
 * SQLite 0001: the core tables. STRICT tables, so a column holds only its declared type.
 * Times are INTEGER epoch ms, booleans INTEGER 0/1, JSON values TEXT.
 * Constraint names match the PostgreSQL migration; see storage/unique-violation.ts.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE tenants (
    id TEXT NOT NULL CONSTRAINT tenants_pkey PRIMARY KEY,
    name TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE TABLE api_keys (
    id TEXT NOT NULL CONSTRAINT api_keys_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    expires_at INTEGER,
    revoked_at INTEGER,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
  ) STRICT`,
  `CREATE INDEX api_keys_tenant_id_id_idx ON api_keys (tenant_id, id)`,
  `CREATE TABLE policies (
    id TEXT NOT NULL CONSTRAINT policies_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    version INTEGER NOT NULL CHECK (version >= 1),
    rules TEXT NOT NULL,
    hash_hex TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    CONSTRAINT policies_tenant_id_version_key UNIQUE (tenant_id, version)
  ) STRICT`,
  `CREATE TABLE registrations (
    id TEXT NOT NULL CONSTRAINT registrations_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    subject TEXT NOT NULL,
    challenge_b64url TEXT NOT NULL,
    user_id_b64url TEXT NOT NULL,
    policy_id TEXT NOT NULL REFERENCES policies (id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  ) STRICT`,
  `CREATE TABLE credentials (
    id TEXT NOT NULL CONSTRAINT credentials_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    credential_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    public_key_b64url TEXT NOT NULL,
    algorithm INTEGER NOT NULL,
    sign_count INTEGER NOT NULL CHECK (sign_count >= 0),
    aaguid TEXT NOT NULL,
    transports TEXT NOT NULL,
    backup_eligible INTEGER NOT NULL CHECK (backup_eligible IN (0, 1)),
    backed_up INTEGER NOT NULL CHECK (backed_up IN (0, 1)),
    attestation_format TEXT NOT NULL,
    attestation_object_b64url TEXT NOT NULL,
    client_data_json_b64url TEXT NOT NULL,
    registration_id TEXT NOT NULL REFERENCES registrations (id),
    policy_id TEXT NOT NULL REFERENCES policies (id),
    created_at INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at INTEGER,
    CONSTRAINT credentials_tenant_id_credential_id_key UNIQUE (tenant_id, credential_id)
  ) STRICT`,
  `CREATE INDEX credentials_tenant_id_subject_id_idx ON credentials (tenant_id, subject, id)`,
  `CREATE INDEX credentials_tenant_id_id_idx ON credentials (tenant_id, id)`,
  `CREATE TABLE challenges (
    id TEXT NOT NULL CONSTRAINT challenges_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    action_hash_hex TEXT NOT NULL,
    subject TEXT,
    purpose TEXT,
    nonce_b64url TEXT NOT NULL,
    challenge_b64url TEXT NOT NULL,
    allow_credential_ids TEXT NOT NULL,
    policy_id TEXT NOT NULL REFERENCES policies (id),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'verified', 'denied', 'expired')),
    used_at INTEGER,
    decision TEXT,
    reason TEXT,
    receipt_id TEXT,
    credential_ref TEXT
  ) STRICT`,
  `CREATE TABLE receipts (
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
    CONSTRAINT receipts_tenant_id_challenge_id_key UNIQUE (tenant_id, challenge_id)
  ) STRICT`,
  `CREATE INDEX receipts_tenant_id_issued_at_id_idx ON receipts (tenant_id, issued_at, id)`,
  `CREATE TABLE signing_keys (
    kid TEXT NOT NULL CONSTRAINT signing_keys_pkey PRIMARY KEY,
    public_key_b64url TEXT NOT NULL,
    private_key_sealed TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    not_before INTEGER NOT NULL,
    not_after INTEGER,
    status TEXT NOT NULL CHECK (status IN ('active', 'retired'))
  ) STRICT`,
  `CREATE TABLE outbox_events (
    id TEXT NOT NULL CONSTRAINT outbox_events_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at INTEGER NOT NULL
  ) STRICT`,
  `CREATE TABLE usage_events (
    id TEXT NOT NULL CONSTRAINT usage_events_pkey PRIMARY KEY,
    tenant_id TEXT NOT NULL REFERENCES tenants (id),
    meter TEXT NOT NULL,
    quantity INTEGER NOT NULL,
    occurred_at INTEGER NOT NULL,
    source_id TEXT NOT NULL,
    CONSTRAINT usage_events_meter_source_id_key UNIQUE (meter, source_id)
  ) STRICT`,
  `CREATE INDEX usage_events_tenant_id_occurred_at_idx ON usage_events (tenant_id, occurred_at)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
