/**
 * Row types of the tables, as Kysely sees them in both dialects. Column names are snake_case;
 * times are epoch milliseconds; booleans are 0/1 integers; JSON values are TEXT. Row shapes are
 * type aliases (not interfaces) so a row is also a Record<string, unknown> for generic test code.
 */

import type * as Approvals from './schema-approvals.js';
import type * as ReceiptLog from './schema-receipt-log.js';
import type * as ConsoleChanges from './schema-console-changes.js';

export type * from './schema-receipt-log.js';
export type * from './schema-approvals.js';

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
  /** The key its one rotation issued; null while never rotated (migration 0015). */
  rotated_to: string | null;
  /** The console member who created it, or rotated the key it succeeds; null otherwise (migration 0019). */
  created_by_member_id: string | null;
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
  /** Per-tenant, gap-free, assigned in commit order (migration 0002). */
  seq: number;
};

export type TenantCountersTable = {
  tenant_id: string;
  name: string;
  value: number;
};

export type ExportsTable = {
  id: string;
  tenant_id: string;
  api_key_id: string | null;
  status: string;
  range_from: number;
  range_to: number;
  /** JSON object of the filters applied. */
  filters: string;
  snapshot_seq: number;
  receipt_count: number;
  manifest_sha256: string | null;
  kid: string | null;
  created_at: number;
  finished_at: number | null;
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
  /** When the webhook fan-out turned it into deliveries (0003); null while waiting. */
  fanned_out_at: number | null;
  /** W3C traceparent of the request that recorded it (0012); null when tracing is off. */
  trace_parent?: string | null;
};

export type UsageEventsTable = {
  id: string;
  tenant_id: string;
  meter: string;
  quantity: number;
  occurred_at: number;
  source_id: string;
};

export type WebhookEndpointsTable = {
  id: string;
  tenant_id: string;
  url: string;
  description: string | null;
  /** JSON array of subscribed event types. */
  events: string;
  enabled: number;
  disabled_reason: string | null;
  disabled_at: number | null;
  secret_sealed: string;
  secret_created_at: number;
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
};

export type WebhookDeliveriesTable = {
  id: string;
  tenant_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempt_count: number;
  retry_count: number;
  /** When it is due; while leased, the lease's end. Null once succeeded or failed. */
  next_attempt_at: number | null;
  lease_token: string | null;
  leased_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  first_succeeded_at: number | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
};

export type WebhookAttemptsTable = {
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_snippet: string | null;
};

/** 0004: per-tenant, per-meter usage counters by hour, day and month (UTC bucket starts). */
export type UsageRollupsTable = {
  tenant_id: string;
  granularity: string;
  bucket_start: number;
  meter: string;
  quantity: number;
  /** 1 once the month's invoice is finalized (month rows only): no more usage may be counted. */
  sealed: number;
};

export type QuotaCountersTable = {
  tenant_id: string;
  period_start: number;
  used: number;
  threshold_80_at: number | null;
  threshold_100_at: number | null;
};

export type BillingPlansTable = {
  tenant_id: string;
  effective_from: number;
  /** JSON text of the Plan. */
  plan: string;
  created_at: number;
};

export type InvoicesTable = {
  id: string;
  tenant_id: string;
  sequence: number;
  number: string;
  status: string;
  period_start: number;
  period_end: number;
  currency: string;
  currency_exponent: number;
  /** JSON text of the Plan applied. */
  plan: string;
  /** JSON text of the InvoiceLine array. */
  lines: string;
  subtotal_minor: number;
  total_minor: number;
  finalized_at: number;
  paid_at: number | null;
  voided_at: number | null;
  note: string | null;
};

export type InvoiceCountersTable = {
  tenant_id: string;
  last_sequence: number;
};

export type ConsoleMembersTable = {
  id: string;
  tenant_id: string;
  display_name: string;
  role: string;
  created_at: number;
  removed_at: number | null;
};

export type ConsoleInvitesTable = {
  id: string;
  tenant_id: string;
  token_hash: string;
  role: string;
  member_id: string;
  created_by: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
};

export type ConsoleSessionsTable = {
  id: string;
  tenant_id: string;
  member_id: string;
  token_hash: string;
  created_at: number;
  last_seen_at: number;
  expires_at: number;
  revoked_at: number | null;
};

/** Migration 0014: members' names for their console passkeys (credentials of the console tenant). */
export type ConsolePasskeyNamesTable = {
  credential_ref: string;
  tenant_id: string;
  member_id: string;
  name: string;
  updated_at: number;
};

/** Migration 0014: every change of configuration or access, by any door (domain/audit). */
export type AuditEventsTable = {
  id: string;
  tenant_id: string;
  at: number;
  actor_type: string;
  actor_id: string;
  actor_name: string;
  action: string;
  target_type: string;
  target_id: string;
  target_name: string | null;
  approval_id: string | null;
  receipt_id: string | null;
  receipt_hash_hex: string | null;
  request_id: string | null;
  /** JSON object: what changed. */
  detail: string;
};

export type SchemaMigrationsTable = {
  id: string;
  applied_at: number;
};

/** Migration 0005: one row per (tenant, Idempotency-Key), with the sealed response. */
export type IdempotencyKeysTable = {
  tenant_id: string;
  idempotency_key: string;
  fingerprint_hex: string;
  method: string;
  route: string;
  status_code: number | null;
  response_sealed: string | null;
  created_at: number;
  expires_at: number;
};

export interface Database {
  tenants: TenantsTable;
  approvals: Approvals.ApprovalsTable;
  approval_approvers: Approvals.ApprovalApproversTable;
  approval_sets: Approvals.ApprovalSetsTable;
  approval_challenges: Approvals.ApprovalChallengesTable;
  enrollment_links: Approvals.EnrollmentLinksTable;
  unique_action_claims: Approvals.UniqueActionClaimsTable;
  api_keys: ApiKeysTable;
  policies: PoliciesTable;
  registrations: RegistrationsTable;
  credentials: CredentialsTable;
  challenges: ChallengesTable;
  receipts: ReceiptsTable;
  tenant_counters: TenantCountersTable;
  exports: ExportsTable;
  signing_keys: SigningKeysTable;
  outbox_events: OutboxEventsTable;
  usage_events: UsageEventsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  usage_rollups: UsageRollupsTable;
  quota_counters: QuotaCountersTable;
  billing_plans: BillingPlansTable;
  invoices: InvoicesTable;
  invoice_counters: InvoiceCountersTable;
  idempotency_keys: IdempotencyKeysTable;
  receipt_log_state: ReceiptLog.ReceiptLogStateTable;
  receipt_log_tiles: ReceiptLog.ReceiptLogTilesTable;
  receipt_log_checkpoints: ReceiptLog.ReceiptLogCheckpointsTable;
  receipt_log_cosignatures: ReceiptLog.ReceiptLogCosignaturesTable;
  receipt_log_witness_settings: ReceiptLog.ReceiptLogWitnessSettingsTable;
  receipt_log_keys: ReceiptLog.ReceiptLogKeysTable;
  console_members: ConsoleMembersTable;
  console_invites: ConsoleInvitesTable;
  console_sessions: ConsoleSessionsTable;
  audit_events: AuditEventsTable;
  console_passkey_names: ConsolePasskeyNamesTable;
  console_settings: ConsoleChanges.ConsoleSettingsTable;
  console_changes: ConsoleChanges.ConsoleChangesTable;
  schema_migrations: SchemaMigrationsTable;
}
