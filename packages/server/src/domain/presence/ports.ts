/** What the domain needs from storage for presence (a member of StoreTx in ../ports.ts). */
import type { Decision } from '@presence/contract';

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
  /** Settles a pending challenge; false when it was no longer pending (someone else decided). */
  settle(tenantId: string, id: string, s: ChallengeSettlement): Promise<boolean>;
}
