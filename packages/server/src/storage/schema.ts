/**
 * Row types of the tables, as Kysely sees them in both dialects. Column names are snake_case;
 * times are epoch milliseconds; booleans are 0/1 integers; JSON values are TEXT. Row shapes are
 * type aliases (not interfaces) so a row is also a Record<string, unknown> for generic test code.
 */

export type TenantsTable = {
  id: string;
  name: string;
  created_at: number;
};

export type ApiKeysTable = {
  id: string;
  tenant_id: string;
  name: string;
  prefix: string;
  key_hash: string;
  /** JSON array of scope names. */
  scopes: string;
  created_at: number;
  last_used_at: number | null;
  expires_at: number | null;
  revoked_at: number | null;
};

export type PoliciesTable = {
  id: string;
  tenant_id: string;
  version: number;
  /** JSON object: the resolved PolicyRules. */
  rules: string;
  hash_hex: string;
  created_at: number;
};

export type RegistrationsTable = {
  id: string;
  tenant_id: string;
  subject: string;
  challenge_b64url: string;
  user_id_b64url: string;
  policy_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
};

export type CredentialsTable = {
  id: string;
  tenant_id: string;
  credential_id: string;
  subject: string;
  public_key_b64url: string;
  algorithm: number;
  sign_count: number;
  aaguid: string;
  /** JSON array of transport hints. */
  transports: string;
  backup_eligible: number;
  backed_up: number;
  attestation_format: string;
  attestation_object_b64url: string;
  client_data_json_b64url: string;
  registration_id: string;
  policy_id: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

export type ChallengesTable = {
  id: string;
  tenant_id: string;
  action_hash_hex: string;
  subject: string | null;
  purpose: string | null;
  nonce_b64url: string;
  challenge_b64url: string;
  /** JSON array of WebAuthn credential ids. */
  allow_credential_ids: string;
  policy_id: string;
  created_at: number;
  expires_at: number;
  status: string;
  used_at: number | null;
  decision: string | null;
  reason: string | null;
  receipt_id: string | null;
  credential_ref: string | null;
};

export type ReceiptsTable = {
  id: string;
  tenant_id: string;
  challenge_id: string;
  credential_ref: string;
  subject: string;
  action_hash_hex: string;
  issued_at: number;
  canonical_json: string;
  hash_hex: string;
  kid: string;
  signature_b64url: string;
};

export type SigningKeysTable = {
  kid: string;
  public_key_b64url: string;
  private_key_sealed: string;
  created_at: number;
  not_before: number;
  not_after: number | null;
  status: string;
};

export type OutboxEventsTable = {
  id: string;
  tenant_id: string;
  type: string;
  /** JSON text of the event payload. */
  payload: string;
  created_at: number;
};

export type UsageEventsTable = {
  id: string;
  tenant_id: string;
  meter: string;
  quantity: number;
  occurred_at: number;
  source_id: string;
};

export type SchemaMigrationsTable = {
  id: string;
  applied_at: number;
};

export interface Database {
  tenants: TenantsTable;
  api_keys: ApiKeysTable;
  policies: PoliciesTable;
  registrations: RegistrationsTable;
  credentials: CredentialsTable;
  challenges: ChallengesTable;
  receipts: ReceiptsTable;
  signing_keys: SigningKeysTable;
  outbox_events: OutboxEventsTable;
  usage_events: UsageEventsTable;
  schema_migrations: SchemaMigrationsTable;
}
