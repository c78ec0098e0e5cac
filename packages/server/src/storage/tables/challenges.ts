/**
 * The challenges table, spelled in one place: its columns, its row mapper both ways, and its two
 * writes with their values in placeholder order: a new challenge's insert and a settlement's
 * compare-and-set on `status = 'pending'` (one decision per challenge). The repo
 * (repos/challenges.ts), the hot path (hot-path/statements.ts, challenge-creation.ts,
 * presence-hot-path.ts) and the bench seeders (bench/export/seed-receipts.mjs) build from it.
 */
import type { Decision } from '@presence/contract';
import type { ChallengeRecord, ChallengeSettlement, ChallengeStatus } from '../../domain/presence/ports.js';
import { parseJson } from '../repos/rows.js';
import type { ChallengesTable } from '../schema.js';
import { assignments, literal, numbered, placeholders } from './sql-text.js';

/** What a creation writes besides its status ('pending'), in the order of `newChallengeValues`. */
export const NEW_CHALLENGE_COLUMNS = [
  'id',
  'tenant_id',
  'action_hash_hex',
  'subject',
  'purpose',
  'nonce_b64url',
  'challenge_b64url',
  'allow_credential_ids',
  'policy_id',
  'created_at',
  'expires_at',
] as const satisfies readonly (keyof ChallengesTable)[];

/** What a settlement writes, in the order of `settleChallengeValues`. */
export const SETTLEMENT_COLUMNS = [
  'status',
  'used_at',
  'decision',
  'reason',
  'receipt_id',
  'credential_ref',
] as const satisfies readonly (keyof ChallengesTable)[];

export type SettlementColumn = (typeof SETTLEMENT_COLUMNS)[number];

/** Every column, in the order of `challengeValues`. */
export const CHALLENGE_COLUMNS = [...NEW_CHALLENGE_COLUMNS, ...SETTLEMENT_COLUMNS] as const;

export function toChallengeRow(c: ChallengeRecord): ChallengesTable {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    action_hash_hex: c.actionHashHex,
    subject: c.subject,
    purpose: c.purpose,
    nonce_b64url: c.nonceB64Url,
    challenge_b64url: c.challengeB64Url,
    allow_credential_ids: JSON.stringify(c.allowCredentialIds),
    policy_id: c.policyId,
    created_at: c.createdAt,
    expires_at: c.expiresAt,
    ...toSettlementRow(c),
  };
}

/** status (CHECKed by the schema) and decision are written only from typed records. */
export function toChallenge(row: ChallengesTable): ChallengeRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    actionHashHex: row.action_hash_hex,
    subject: row.subject,
    purpose: row.purpose,
    nonceB64Url: row.nonce_b64url,
    challengeB64Url: row.challenge_b64url,
    allowCredentialIds: parseJson<string[]>(row.allow_credential_ids),
    policyId: row.policy_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.status as ChallengeStatus,
    usedAt: row.used_at,
    decision: row.decision as Decision | null,
    reason: row.reason,
    receiptId: row.receipt_id,
    credentialRef: row.credential_ref,
  };
}

/** A whole row's values in CHALLENGE_COLUMNS order (the bench seeders' decided challenges). */
export function challengeValues(c: ChallengeRecord): unknown[] {
  const row = toChallengeRow(c);
  return CHALLENGE_COLUMNS.map((column) => row[column]);
}

/** $1..$11 the new challenge's columns in NEW_CHALLENGE_COLUMNS order; it starts 'pending'. */
export const INSERT_CHALLENGE = `insert into challenges (${NEW_CHALLENGE_COLUMNS}, status)
  values (${placeholders(NEW_CHALLENGE_COLUMNS)}, 'pending')`;

/** INSERT_CHALLENGE's values. */
export function newChallengeValues(c: ChallengeRecord): unknown[] {
  const row = toChallengeRow(c);
  return NEW_CHALLENGE_COLUMNS.map((column) => row[column]);
}

/** A settlement's SET clause, from one expression per column (statements.ts's PostgreSQL CTEs). */
export function settlementSet(expressions: Record<SettlementColumn, string>): string {
  return assignments(SETTLEMENT_COLUMNS, expressions);
}

/**
 * $1..$6 the settlement in SETTLEMENT_COLUMNS order, $7 tenant, $8 challenge id. Changes a row
 * only while it is pending: of racing settlements exactly one changes it, the row count says which.
 */
export const SETTLE_CHALLENGE = `update challenges set ${settlementSet(numbered(SETTLEMENT_COLUMNS))}
  where tenant_id = $7 and id = $8 and status = 'pending'`;

/** SETTLE_CHALLENGE's values. */
export function settleChallengeValues(tenantId: string, id: string, s: ChallengeSettlement): unknown[] {
  const row = toSettlementRow(s);
  return [...SETTLEMENT_COLUMNS.map((column) => row[column]), tenantId, id];
}

/** How a successful verification settles its challenge (and what every dialect writes for it). */
export const VERIFIED = {
  status: 'verified',
  decision: 'PRESENCE_VERIFIED',
  reason: null,
} as const satisfies Pick<ChallengeSettlement, 'status' | 'decision' | 'reason'>;

/** VERIFIED's columns as SQL constants, for statements that write them without parameters. */
export const VERIFIED_SQL = {
  status: literal(VERIFIED.status),
  decision: literal(VERIFIED.decision),
  reason: 'null',
} as const;

export function verifiedSettlement(
  usedAt: number,
  receiptId: string,
  credentialRef: string,
): ChallengeSettlement {
  return { ...VERIFIED, usedAt, receiptId, credentialRef };
}

function toSettlementRow(
  s: Pick<ChallengeRecord, 'status' | 'usedAt' | 'decision' | 'reason' | 'receiptId' | 'credentialRef'>,
) {
  return {
    status: s.status,
    used_at: s.usedAt,
    decision: s.decision,
    reason: s.reason,
    receipt_id: s.receiptId,
    credential_ref: s.credentialRef,
  } satisfies Pick<ChallengesTable, SettlementColumn>;
}
