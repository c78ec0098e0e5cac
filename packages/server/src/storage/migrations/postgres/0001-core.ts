/**
 * PostgreSQL 0001: the core tables. Times are BIGINT epoch ms (parsed to number per pool),
 * booleans SMALLINT 0/1 and JSON values TEXT, so the shared queries read the same rows as on
 * SQLite (TEXT also keeps the bytes exactly as written). Ids use COLLATE "C" so keyset
 * pagination orders bytewise, as SQLite does. Constraint names are the ones
 * storage/unique-violation.ts reports for SQLite too.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE tenants (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT tenants_pkey PRIMARY KEY,
    name TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  `CREATE TABLE api_keys (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT api_keys_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    name TEXT NOT NULL,
    prefix TEXT NOT NULL,
    key_hash TEXT NOT NULL,
    scopes TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    expires_at BIGINT,
    revoked_at BIGINT,
    CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash)
  )`,
  `CREATE INDEX api_keys_tenant_id_id_idx ON api_keys (tenant_id, id)`,
  `CREATE TABLE policies (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT policies_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    version INTEGER NOT NULL CHECK (version >= 1),
    rules TEXT NOT NULL,
    hash_hex TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CONSTRAINT policies_tenant_id_version_key UNIQUE (tenant_id, version)
  )`,
  `CREATE TABLE registrations (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT registrations_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    subject TEXT NOT NULL,
    challenge_b64url TEXT NOT NULL,
    user_id_b64url TEXT NOT NULL,
    policy_id TEXT COLLATE "C" NOT NULL REFERENCES policies (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
  )`,
  `CREATE TABLE credentials (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT credentials_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    credential_id TEXT NOT NULL,
    subject TEXT NOT NULL,
    public_key_b64url TEXT NOT NULL,
    algorithm INTEGER NOT NULL,
    sign_count BIGINT NOT NULL CHECK (sign_count >= 0),
    aaguid TEXT NOT NULL,
    transports TEXT NOT NULL,
    backup_eligible SMALLINT NOT NULL CHECK (backup_eligible IN (0, 1)),
    backed_up SMALLINT NOT NULL CHECK (backed_up IN (0, 1)),
    attestation_format TEXT NOT NULL,
    attestation_object_b64url TEXT NOT NULL,
    client_data_json_b64url TEXT NOT NULL,
    registration_id TEXT COLLATE "C" NOT NULL REFERENCES registrations (id),
    policy_id TEXT COLLATE "C" NOT NULL REFERENCES policies (id),
    created_at BIGINT NOT NULL,
    last_used_at BIGINT,
    revoked_at BIGINT,
    CONSTRAINT credentials_tenant_id_credential_id_key UNIQUE (tenant_id, credential_id)
  )`,
  `CREATE INDEX credentials_tenant_id_subject_id_idx ON credentials (tenant_id, subject, id)`,
  `CREATE INDEX credentials_tenant_id_id_idx ON credentials (tenant_id, id)`,
  `CREATE TABLE challenges (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT challenges_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    action_hash_hex TEXT NOT NULL,
    subject TEXT,
    purpose TEXT,
    nonce_b64url TEXT NOT NULL,
    challenge_b64url TEXT NOT NULL,
    allow_credential_ids TEXT NOT NULL,
    policy_id TEXT COLLATE "C" NOT NULL REFERENCES policies (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'verified', 'denied', 'expired')),
    used_at BIGINT,
    decision TEXT,
    reason TEXT,
    receipt_id TEXT,
    credential_ref TEXT
  )`,
  `CREATE TABLE receipts (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT receipts_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    challenge_id TEXT COLLATE "C" NOT NULL REFERENCES challenges (id),
    credential_ref TEXT NOT NULL,
    subject TEXT NOT NULL,
    action_hash_hex TEXT NOT NULL,
    issued_at BIGINT NOT NULL,
    canonical_json TEXT NOT NULL,
    hash_hex TEXT NOT NULL,
    kid TEXT NOT NULL,
    signature_b64url TEXT NOT NULL,
    CONSTRAINT receipts_tenant_id_challenge_id_key UNIQUE (tenant_id, challenge_id)
  )`,
  `CREATE INDEX receipts_tenant_id_issued_at_id_idx ON receipts (tenant_id, issued_at, id)`,
  `CREATE TABLE signing_keys (
    kid TEXT COLLATE "C" NOT NULL CONSTRAINT signing_keys_pkey PRIMARY KEY,
    public_key_b64url TEXT NOT NULL,
    private_key_sealed TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    not_before BIGINT NOT NULL,
    not_after BIGINT,
    status TEXT NOT NULL CHECK (status IN ('active', 'retired'))
  )`,
  `CREATE TABLE outbox_events (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT outbox_events_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at BIGINT NOT NULL
  )`,
  `CREATE TABLE usage_events (
    id TEXT COLLATE "C" NOT NULL CONSTRAINT usage_events_pkey PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    meter TEXT NOT NULL,
    quantity BIGINT NOT NULL,
    occurred_at BIGINT NOT NULL,
    source_id TEXT NOT NULL,
    CONSTRAINT usage_events_meter_source_id_key UNIQUE (meter, source_id)
  )`,
  `CREATE INDEX usage_events_tenant_id_occurred_at_idx ON usage_events (tenant_id, occurred_at)`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) {
    await sql.raw(statement).execute(db);
  }
}
