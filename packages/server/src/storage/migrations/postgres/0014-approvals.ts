/**
 * PostgreSQL 0014.
 * Approvals (docs/approvals.md): the approval with its canonical action and the SHA-256 of its
 * link token (never the token), one row per approver holding that approver's one decision, at most
 * one signed approval set per approval (its primary key), the ceremony challenges the hosted page
 * issued for an approval, single-use enrollment links (token hash only), and the claims of the
 * policy rule uniqueActions (one live challenge or approval per action hash). Same shape in both
 * dialects; the constraint names follow PostgreSQL's rule so UniqueViolation names match.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

const STATEMENTS = [
  `CREATE TABLE approvals (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    action_json TEXT NOT NULL,
    action_hash_hex TEXT COLLATE "C" NOT NULL,
    title TEXT,
    required INTEGER NOT NULL,
    initiator TEXT,
    purpose TEXT,
    status TEXT NOT NULL,
    token_hash TEXT COLLATE "C" NOT NULL,
    binding_code TEXT NOT NULL,
    version INTEGER NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    decided_at BIGINT,
    CONSTRAINT approvals_token_hash_key UNIQUE (token_hash)
  )`,
  `CREATE INDEX approvals_tenant_idx ON approvals (tenant_id, id)`,
  `CREATE INDEX approvals_pending_expiry_idx ON approvals (expires_at) WHERE status = 'pending'`,
  `CREATE INDEX approvals_action_idx ON approvals (tenant_id, action_hash_hex)`,
  `CREATE TABLE approval_approvers (
    approval_id TEXT COLLATE "C" NOT NULL REFERENCES approvals (id),
    subject TEXT COLLATE "C" NOT NULL,
    tenant_id TEXT COLLATE "C" NOT NULL,
    position INTEGER NOT NULL,
    decision TEXT,
    receipt_id TEXT COLLATE "C",
    receipt_hash_hex TEXT,
    decided_at BIGINT,
    CONSTRAINT approval_approvers_pkey PRIMARY KEY (approval_id, subject)
  )`,
  `CREATE TABLE approval_sets (
    approval_id TEXT COLLATE "C" NOT NULL REFERENCES approvals (id),
    tenant_id TEXT COLLATE "C" NOT NULL,
    canonical_json TEXT NOT NULL,
    hash_hex TEXT NOT NULL,
    kid TEXT NOT NULL,
    signature_b64url TEXT NOT NULL,
    decided_at BIGINT NOT NULL,
    CONSTRAINT approval_sets_pkey PRIMARY KEY (approval_id)
  )`,
  `CREATE INDEX approval_sets_tenant_idx ON approval_sets (tenant_id, decided_at)`,
  `CREATE TABLE approval_challenges (
    challenge_id TEXT COLLATE "C" NOT NULL,
    tenant_id TEXT COLLATE "C" NOT NULL,
    approval_id TEXT COLLATE "C" NOT NULL REFERENCES approvals (id),
    intent TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    CONSTRAINT approval_challenges_pkey PRIMARY KEY (challenge_id)
  )`,
  `CREATE INDEX approval_challenges_approval_idx ON approval_challenges (approval_id)`,
  `CREATE TABLE enrollment_links (
    id TEXT COLLATE "C" PRIMARY KEY,
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    token_hash TEXT COLLATE "C" NOT NULL,
    subject TEXT NOT NULL,
    display_name TEXT,
    registration_id TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    CONSTRAINT enrollment_links_token_hash_key UNIQUE (token_hash)
  )`,
  `CREATE TABLE unique_action_claims (
    tenant_id TEXT COLLATE "C" NOT NULL REFERENCES tenants (id),
    action_hash_hex TEXT COLLATE "C" NOT NULL,
    holder_id TEXT COLLATE "C" NOT NULL,
    held_until BIGINT NOT NULL,
    CONSTRAINT unique_action_claims_pkey PRIMARY KEY (tenant_id, action_hash_hex)
  )`,
];

export async function up(db: QueryExecutorProvider): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}
