/** What the domain needs from storage for presence (a member of StoreTx in ../ports.ts). */
import type { Decision } from '@presence/contract';
import type { QuotaCounter } from '../billing/ports.js';
import type { CredentialInUse } from '../credentials/ports.js';
import type { OutboxEventRecord } from '../events/ports.js';
import type { ReceiptRecord } from '../receipts/ports.js';
import type { UsageEventRecord } from '../usage/ports.js';

export type ChallengeStatus = 'pending' | 'verified' | 'denied' | 'expired';

export interface ChallengeRecord {
  id: string;
  tenantId: string;
  actionHashHex: string;
  subject: string | null;
  purpose: string | null;
  nonceB64Url: string;
  challengeB64Url: string;
  /** WebAuthn credential ids (base64url) offered in allowCredentials; empty when no subject. */
  allowCredentialIds: string[];
  policyId: string;
  createdAt: number;
  expiresAt: number;
  status: ChallengeStatus;
  usedAt: number | null;
  decision: Decision | null;
  reason: string | null;
  receiptId: string | null;
  credentialRef: string | null;
}

export interface ChallengeSettlement {
  status: Exclude<ChallengeStatus, 'pending'>;
  usedAt: number;
  decision: Decision;
  reason: string | null;
  receiptId: string | null;
  credentialRef: string | null;
}

export interface ChallengeRepo {
  insert(c: ChallengeRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<ChallengeRecord | undefined>;
  /**
   * Deletes up to `limit` challenges for this action that expired in [`since`, `now`) and back
   * no receipt (never answered, or denied); returns how many went. The window keeps the scan of
   * the expiry index short; older ones are retention's.
   */
  deleteExpired(
    tenantId: string,
    actionHashHex: string,
    window: { since: number; now: number },
    limit: number,
  ): Promise<number>;
}

/** What a verification reads before it decides: one query for the challenge and the credential. */
export interface VerifyInputs {
  challenge: ChallengeRecord;
  /** The tenant's credential with the presented WebAuthn id; undefined when there is none. */
  credential: CredentialInUse | undefined;
}

/** Everything a successful verification writes, in one call (storage/hot-path/presence-hot-path.ts). */
export interface VerifiedSettlement {
  /** Compare-and-set on the credential: active and still at `expectedSignCount`. */
  credentialUse: { id: string; expectedSignCount: number; signCount: number; backedUp: boolean };
  usedAt: number;
  receipt: ReceiptRecord;
  usage: UsageEventRecord;
  event: OutboxEventRecord;
}

/** Everything a denial writes. */
export interface DeniedSettlement {
  tenantId: string;
  challengeId: string;
  settlement: ChallengeSettlement;
  usage: UsageEventRecord;
  event: OutboxEventRecord;
}

/** A new challenge with its usage event, under the tenant's monthly quota. */
export interface ChallengeCreation {
  challenge: ChallengeRecord;
  usage: UsageEventRecord;
  quota: { periodStart: number; limit: number | null };
}

export type SettleOutcome =
  /** Everything was written (in the caller's transaction); `seq` is the receipt's. */
  | { kind: 'settled'; seq: number }
  /** The challenge was no longer pending: the caller must roll back (the counter may have moved). */
  | { kind: 'already-decided' }
  /** The credential's counter moved or it was revoked: nothing was written; re-read it and retry. */
  | { kind: 'counter-moved' };

/**
 * The verify hot path: statements compiled once, one read and one write call per verification
 * (on PostgreSQL the write is one statement; the per-tenant rows it touches come last).
 * Writes run inside store.transaction, like every other write.
 */
export interface AllowedCredential {
  credentialId: string;
  transports: string[];
}

export interface PresenceHotPath {
  /** A subject's active credentials (at most `limit`, by row id): what a new challenge allows. */
  allowedCredentials(tenantId: string, subject: string, limit: number): Promise<AllowedCredential[]>;
  readForVerify(
    tenantId: string,
    challengeId: string,
    credentialId: string | null,
  ): Promise<VerifyInputs | undefined>;
  settleVerified(s: VerifiedSettlement): Promise<SettleOutcome>;
  /** 'settled', or 'already-decided' when the challenge was no longer pending (nothing written). */
  settleDenied(s: DeniedSettlement): Promise<'settled' | 'already-decided'>;
  /**
   * Takes one challenge from the quota and, only if there was room, stores the challenge and its
   * usage (rollups included): the quota's counter afterwards, or undefined when it was full (the
   * caller must then fail its transaction). Inside store.transaction; the per-tenant rows come last.
   */
  createChallenge(c: ChallengeCreation): Promise<QuotaCounter | undefined>;
}
