import type { Decision, VerifyBody, VerifyResult } from '@presence/contract';
import type { Deps } from '../deps.js';
import { recordEvent } from '../events/record-event.js';
import { newId } from '../ids.js';
import type { ChallengeRecord, ReceiptRecord, StoreTx } from '../ports.js';
import { buildReceipt, sealReceipt } from '../receipts/build-receipt.js';
import { recordUsage } from '../usage/record-usage.js';
import { evaluateAssertion, type Evaluation } from './evaluate-assertion.js';

/** Thrown inside the settling transaction when another call decided the challenge first. */
class AlreadyDecided extends Error {}

/**
 * The gate. The first call that names a challenge consumes it, whatever the outcome; exactly one
 * decision is stored, and at most one receipt, even with concurrent calls from several processes
 * (the settle is a compare-and-set on the challenge row, and receipts are unique per challenge).
 */
export async function verifyPresence(deps: Deps, tenantId: string, input: VerifyBody): Promise<VerifyResult> {
  const challenge = await deps.store.challenges.get(tenantId, input.challengeId);
  if (!challenge) {
    return {
      decision: 'CHALLENGE_NOT_FOUND',
      challengeId: input.challengeId,
      reason: 'no such challenge for this tenant',
    };
  }
  if (challenge.status !== 'pending') return alreadyUsed(challenge.id);
  const now = deps.clock.now();
  const evaluation = await evaluateAssertion(deps, challenge, input.assertion, now);
  try {
    return await deps.store.transaction((tx) => settle(deps, tx, challenge, evaluation, now));
  } catch (error) {
    if (error instanceof AlreadyDecided) return alreadyUsed(challenge.id);
    throw error;
  }
}

function alreadyUsed(challengeId: string): VerifyResult {
  return {
    decision: 'CHALLENGE_ALREADY_USED',
    challengeId,
    reason: 'the challenge was already used; read its outcome with GET /v1/presence/challenges/{challengeId}',
  };
}

async function settle(
  deps: Deps,
  tx: StoreTx,
  challenge: ChallengeRecord,
  evaluation: Evaluation,
  now: number,
): Promise<VerifyResult> {
  const final = evaluation.verified ? await claimCounter(tx, evaluation, now) : evaluation;
  if (!final.verified) {
    await settleChallenge(
      tx,
      challenge,
      now,
      final.decision,
      final.reason,
      null,
      final.credential?.id ?? null,
    );
    await recordEvent(deps, tx, challenge.tenantId, 'presence.denied', {
      challengeId: challenge.id,
      actionHashHex: challenge.actionHashHex,
      subject: challenge.subject,
      decision: final.decision,
      reason: final.reason,
    });
    await recordUsage(deps, tx, challenge.tenantId, 'presence.denied', challenge.id);
    return { decision: final.decision, challengeId: challenge.id, reason: final.reason };
  }
  const receipt = sealReceipt(
    deps.signer,
    buildReceipt({ receiptId: newId(deps, 'rct'), challenge, ...final, verifiedAt: now }),
  );
  await settleChallenge(tx, challenge, now, 'PRESENCE_VERIFIED', null, receipt.id, final.credential.id);
  await recordEvent(
    deps,
    tx,
    challenge.tenantId,
    'receipt.created',
    receiptCreatedEvent(receipt, final.credential.credentialId),
  );
  // The usage counters and the receipt sequence are per-tenant rows that stay locked until commit:
  // take them last, so concurrent verifications of one tenant queue for as short a time as possible.
  await recordUsage(deps, tx, challenge.tenantId, 'presence.verified', challenge.id);
  await tx.receipts.insert(receipt);
  return {
    decision: 'PRESENCE_VERIFIED',
    challengeId: challenge.id,
    receiptId: receipt.id,
    receiptHashHex: receipt.hashHex,
  };
}

async function settleChallenge(
  tx: StoreTx,
  challenge: ChallengeRecord,
  now: number,
  decision: Decision,
  reason: string | null,
  receiptId: string | null,
  credentialRef: string | null,
): Promise<void> {
  const status =
    decision === 'PRESENCE_VERIFIED' ? 'verified' : decision === 'CHALLENGE_EXPIRED' ? 'expired' : 'denied';
  const settled = await tx.challenges.settle(challenge.tenantId, challenge.id, {
    status,
    usedAt: now,
    decision,
    reason,
    receiptId,
    credentialRef,
  });
  if (!settled) throw new AlreadyDecided();
}

/**
 * Advances the credential's counter with a compare-and-set. Another challenge signed by the
 * same authenticator may have moved it meanwhile: re-check against the fresh value a few times.
 */
async function claimCounter(
  tx: StoreTx,
  evaluation: Extract<Evaluation, { verified: true }>,
  now: number,
): Promise<Evaluation> {
  let stored = evaluation.credential;
  const next = evaluation.assertion.signCount;
  const ignoreCounter = evaluation.policy.rules.counter === 'ignore';
  for (let attempt = 0; attempt < 3; attempt++) {
    const use = {
      expectedSignCount: stored.signCount,
      signCount: Math.max(next, stored.signCount),
      backedUp: evaluation.assertion.flags.BS,
      at: now,
    };
    if (await tx.credentials.recordUse(stored.id, use)) return evaluation;
    const fresh = await tx.credentials.get(stored.tenantId, stored.id);
    if (!fresh || fresh.revokedAt !== null) {
      return {
        verified: false,
        decision: 'CREDENTIAL_REVOKED',
        reason: 'the credential was revoked during verification',
        credential: stored,
      };
    }
    if (!ignoreCounter && (next !== 0 || fresh.signCount !== 0) && next <= fresh.signCount) {
      return {
        verified: false,
        decision: 'COUNTER_REGRESSION',
        reason: `signCount ${next} is not above the stored ${fresh.signCount}`,
        credential: fresh,
      };
    }
    stored = fresh;
  }
  return {
    verified: false,
    decision: 'COUNTER_REGRESSION',
    reason: 'the credential counter kept changing concurrently',
    credential: stored,
  };
}

function receiptCreatedEvent(r: ReceiptRecord, credentialId: string) {
  return {
    receiptId: r.id,
    challengeId: r.challengeId,
    actionHashHex: r.actionHashHex,
    subject: r.subject,
    credentialRef: r.credentialRef,
    credentialId,
    receiptHashHex: r.hashHex,
    issuedAt: new Date(r.issuedAt).toISOString(),
  };
}
