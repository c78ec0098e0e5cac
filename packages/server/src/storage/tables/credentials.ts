/**
 * The credentials table, spelled in one place: its columns, its row mapper both ways (the whole
 * credential, and the columns a presence check reads), and the counter's compare-and-set with its
 * values in placeholder order. The repo (repos/credentials.ts) and the hot path
 * (hot-path/statements.ts, presence-hot-path.ts) build from it.
 */
import type { CredentialInUse, CredentialRecord } from '../../domain/credentials/ports.js';
import type { VerifiedSettlement } from '../../domain/presence/ports.js';
import { fromFlag, parseJson, toFlag } from '../repos/rows.js';
import type { CredentialsTable } from '../schema.js';
import { assignments, numbered } from './sql-text.js';

export function toCredentialRow(c: CredentialRecord): CredentialsTable {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    credential_id: c.credentialId,
    subject: c.subject,
    public_key_b64url: c.publicKeyB64Url,
    algorithm: c.algorithm,
    sign_count: c.signCount,
    aaguid: c.aaguid,
    transports: JSON.stringify(c.transports),
    backup_eligible: toFlag(c.backupEligible),
    backed_up: toFlag(c.backedUp),
    attestation_format: c.attestationFormat,
    attestation_object_b64url: c.attestationObjectB64Url,
    client_data_json_b64url: c.clientDataJSONB64Url,
    registration_id: c.registrationId,
    policy_id: c.policyId,
    created_at: c.createdAt,
    last_used_at: c.lastUsedAt,
    revoked_at: c.revokedAt,
  };
}

/** The columns a presence check reads (CredentialInUse); the verify hot path selects only these. */
export const CREDENTIAL_IN_USE_COLUMNS = [
  'id',
  'tenant_id',
  'credential_id',
  'subject',
  'public_key_b64url',
  'algorithm',
  'sign_count',
  'backup_eligible',
  'revoked_at',
] as const satisfies readonly (keyof CredentialsTable)[];

export function toCredentialInUse(
  row: Pick<CredentialsTable, (typeof CREDENTIAL_IN_USE_COLUMNS)[number]>,
): CredentialInUse {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    credentialId: row.credential_id,
    subject: row.subject,
    publicKeyB64Url: row.public_key_b64url,
    algorithm: row.algorithm,
    signCount: row.sign_count,
    backupEligible: fromFlag(row.backup_eligible),
    revokedAt: row.revoked_at,
  };
}

export function toCredential(row: CredentialsTable): CredentialRecord {
  return {
    ...toCredentialInUse(row),
    aaguid: row.aaguid,
    transports: parseJson<string[]>(row.transports),
    backedUp: fromFlag(row.backed_up),
    attestationFormat: row.attestation_format,
    attestationObjectB64Url: row.attestation_object_b64url,
    clientDataJSONB64Url: row.client_data_json_b64url,
    registrationId: row.registration_id,
    policyId: row.policy_id,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}

/** What a verification writes to its credential, in the order of `claimCounterValues`. */
export const COUNTER_COLUMNS = [
  'sign_count',
  'backed_up',
  'last_used_at',
] as const satisfies readonly (keyof CredentialsTable)[];

/** The counter's SET clause, from one expression per column (statements.ts's PostgreSQL CTEs). */
export function counterSet(expressions: Record<(typeof COUNTER_COLUMNS)[number], string>): string {
  return assignments(COUNTER_COLUMNS, expressions);
}

/**
 * $1 signCount, $2 backedUp, $3 at (COUNTER_COLUMNS order), $4 credential row id, $5 expected
 * signCount. Changes the row only while the credential is active and its counter is still the
 * one the verification read: of racing uses exactly one changes it.
 */
export const CLAIM_COUNTER = `update credentials set ${counterSet(numbered(COUNTER_COLUMNS))}
  where id = $4 and revoked_at is null and sign_count = $5`;

/** CLAIM_COUNTER's values. */
export function claimCounterValues(use: VerifiedSettlement['credentialUse'], at: number): unknown[] {
  return [use.signCount, toFlag(use.backedUp), at, use.id, use.expectedSignCount];
}
