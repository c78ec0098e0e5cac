/**
 * Real, well-formed receipts without the HTTP round trips: a real assertion from the soft
 * authenticator over a real action-bound challenge, sealed by the service signer exactly as
 * verify-presence does, stored in batched transactions. For suites that need many receipts.
 */
import { randomBytes } from 'node:crypto';
import { deriveChallenge } from '@presence/sdk/node';
import type { Deps } from '../../src/domain/deps.js';
import { newId } from '../../src/domain/ids.js';
import { currentPolicy } from '../../src/domain/policy/get-policy.js';
import type { ChallengeRecord } from '../../src/domain/presence/ports.js';
import type { CredentialRecord } from '../../src/domain/credentials/ports.js';
import type { PolicyRecord } from '../../src/domain/policy/ports.js';
import type { ReceiptRecord } from '../../src/domain/receipts/ports.js';
import { buildReceipt, sealReceipt } from '../../src/domain/receipts/build-receipt.js';
import type { CeremonyOverrides } from '@presence/sdk/testing';
import type { SoftAuthenticator } from './soft-authenticator.js';

export interface SeedOptions {
  /** issuedAt of receipt i (default: now). */
  issuedAt?: (i: number) => number;
  actionHashHex?: (i: number) => string;
  /** Receipts per transaction. */
  batch?: number;
  /** What the authenticator does differently for receipt i, given the challenge (bypasses the verifier). */
  assertion?: (i: number, challengeB64Url: string) => CeremonyOverrides;
}

export async function seedReceipts(
  deps: Deps,
  tenantId: string,
  authenticator: SoftAuthenticator,
  count: number,
  options: SeedOptions = {},
): Promise<ReceiptRecord[]> {
  const credential = await deps.store.credentials.getByCredentialId(tenantId, authenticator.id);
  if (!credential) throw new Error('enroll the authenticator first');
  const policy = await currentPolicy(deps, tenantId);
  const made: ReceiptRecord[] = [];
  const batch = options.batch ?? 200;
  for (let start = 0; start < count; start += batch) {
    await deps.signer.ensureFresh();
    const pairs: { challenge: ChallengeRecord; receipt: ReceiptRecord }[] = [];
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const at = options.issuedAt?.(i) ?? deps.clock.now();
      const action = options.actionHashHex?.(i) ?? randomBytes(32).toString('hex');
      const overrides = (challenge: string) => options.assertion?.(i, challenge) ?? {};
      pairs.push(oneReceipt(deps, authenticator, credential, policy, at, action, overrides));
    }
    await deps.store.transaction(async (tx) => {
      for (const { challenge, receipt } of pairs) {
        await tx.challenges.insert(challenge);
        await tx.receipts.insert(receipt);
      }
    });
    made.push(...pairs.map((p) => p.receipt));
  }
  return made;
}

function oneReceipt(
  deps: Deps,
  authenticator: SoftAuthenticator,
  credential: CredentialRecord,
  policy: PolicyRecord,
  at: number,
  actionHashHex: string,
  overrides: (challengeB64Url: string) => CeremonyOverrides,
): { challenge: ChallengeRecord; receipt: ReceiptRecord } {
  const nonce = randomBytes(32);
  const challengeBytes = deriveChallenge(Buffer.from(actionHashHex, 'hex'), nonce);
  const receiptId = newId(deps, 'rct');
  const challenge: ChallengeRecord = {
    id: newId(deps, 'chl'),
    tenantId: credential.tenantId,
    actionHashHex,
    subject: credential.subject,
    purpose: 'seeded',
    nonceB64Url: nonce.toString('base64url'),
    challengeB64Url: challengeBytes.toString('base64url'),
    allowCredentialIds: [credential.credentialId],
    policyId: policy.id,
    createdAt: at - 5000,
    expiresAt: at + 115_000,
    status: 'verified',
    usedAt: at,
    decision: 'PRESENCE_VERIFIED',
    reason: null,
    receiptId,
    credentialRef: credential.id,
  };
  const signCount = authenticator.signCount + 1;
  const json = authenticator.assert({
    challenge: challenge.challengeB64Url,
    signCount,
    ...overrides(challenge.challengeB64Url),
  });
  const response = json.response as Record<string, string>;
  const b = (field: string) => Buffer.from(response[field]!, 'base64url');
  const assertion = {
    ok: true as const,
    flags: { UP: true, UV: true, BE: false, BS: false, AT: false, ED: false },
    signCount,
    rpIdHashHex: b('authenticatorData').subarray(0, 32).toString('hex'),
    origin: authenticator.origin,
    topOrigin: null,
    crossOrigin: false,
    clientDataType: 'webauthn.get',
    authenticatorData: b('authenticatorData'),
    clientDataJSON: b('clientDataJSON'),
    signature: b('signature'),
    userHandle: null,
    algorithm: -7,
  };
  const receipt = sealReceipt(
    deps.signer,
    buildReceipt({ receiptId, challenge, credential, policy, assertion, verifiedAt: at }),
  );
  return { challenge, receipt };
}
