import type { Receipt } from '@presence/contract';
import { canonicalJson, sha256Hex, toB64Url, toIso } from '../encoding.js';
import type { ChallengeRecord } from '../presence/ports.js';
import type { CredentialInUse } from '../credentials/ports.js';
import type { PolicyRecord } from '../policy/ports.js';
import type { ReceiptRecord } from './ports.js';
import type { VerifiedAssertion } from '../webauthn/verify-assertion.js';
import type { ReceiptSigner } from './receipt-signer.js';

export interface ReceiptFacts {
  receiptId: string;
  challenge: ChallengeRecord;
  credential: CredentialInUse;
  policy: PolicyRecord;
  assertion: VerifiedAssertion;
  verifiedAt: number;
}

/** The receipt object of docs/api-contract.md#6-receipts: every field present, null when absent. */
export function buildReceipt(f: ReceiptFacts): Receipt {
  const a = f.assertion;
  return {
    version: 'presence.receipt.v1',
    receiptId: f.receiptId,
    tenantId: f.challenge.tenantId,
    challengeId: f.challenge.id,
    decision: 'PRESENCE_VERIFIED',
    actionHashHex: f.challenge.actionHashHex,
    purpose: f.challenge.purpose,
    challengeNonceB64Url: f.challenge.nonceB64Url,
    challengeB64Url: f.challenge.challengeB64Url,
    challengeCreatedAt: toIso(f.challenge.createdAt),
    challengeExpiresAt: toIso(f.challenge.expiresAt),
    verifiedAt: toIso(f.verifiedAt),
    issuedAt: toIso(f.verifiedAt),
    rpId: f.policy.rules.rpId,
    origin: a.origin,
    topOrigin: a.topOrigin,
    crossOrigin: a.crossOrigin,
    flags: { UP: a.flags.UP, UV: a.flags.UV, BE: a.flags.BE, BS: a.flags.BS },
    signCount: a.signCount,
    credentialId: f.credential.credentialId,
    credentialRef: f.credential.id,
    credentialPublicKeyB64Url: f.credential.publicKeyB64Url,
    credentialAlg: f.credential.algorithm,
    subject: f.credential.subject,
    authenticatorDataB64Url: toB64Url(a.authenticatorData),
    clientDataJSONB64Url: toB64Url(a.clientDataJSON),
    signatureB64Url: toB64Url(a.signature),
    userHandleB64Url: a.userHandle === null ? null : toB64Url(a.userHandle),
    policyId: f.policy.id,
    policyVersion: f.policy.version,
    policyHashHex: f.policy.hashHex,
  };
}

/**
 * Canonicalizes, hashes and signs: the stored record keeps the exact signed bytes. Throws a 503
 * DomainError instead of signing when the signer cannot be sure of the key (call ensureFresh first).
 */
export function sealReceipt(signer: ReceiptSigner, receipt: Receipt): ReceiptRecord {
  const text = canonicalJson(receipt);
  // The key scheduled for the receipt's own issuedAt, which is what verifiers check it against.
  const key = signer.keyAt(Date.parse(receipt.issuedAt));
  const kid = key.kid;
  const signatureB64Url = key.sign(Buffer.from(text, 'utf8'));
  return {
    id: receipt.receiptId,
    tenantId: receipt.tenantId,
    challengeId: receipt.challengeId,
    credentialRef: receipt.credentialRef,
    subject: receipt.subject,
    actionHashHex: receipt.actionHashHex,
    issuedAt: Date.parse(receipt.issuedAt),
    canonicalJson: text,
    hashHex: sha256Hex(text),
    kid,
    signatureB64Url,
  };
}
