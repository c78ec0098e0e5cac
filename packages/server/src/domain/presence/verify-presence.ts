import type {
  Denial,
  VerifyBody,
  VerifyResult,
  WebhookEventData,
  WebhookEventType,
} from '@presence/contract';
import type { CredentialInUse } from '../credentials/ports.js';
import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import { policyVersion } from '../policy/policy-cache.js';
import type { StoreTx } from '../ports.js';
import { buildReceipt, sealReceipt } from '../receipts/build-receipt.js';
import type { ReceiptRecord } from '../receipts/ports.js';
import type { Meter } from '../usage/record-usage.js';
import { evaluateAssertion, presentedCredentialId, type Evaluation } from './evaluate-assertion.js';
import type { ChallengeRecord } from './ports.js';

/** Thrown inside the settle when another call decided the challenge first (nothing was written). */
class AlreadyDecided extends Error {}

type VerifyDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'signer' | 'publicKeys' | 'policies'>;

/**
 * The gate. The first call that names a challenge consumes it, whatever the outcome; exactly one
 * decision is stored, and at most one receipt, even with concurrent calls from several processes
 * (the settle is a compare-and-set on the challenge row, and receipts are unique per challenge).
 * One read (challenge and credential), the policy version from memory, and one write call that is
 * a single self-contained statement on PostgreSQL, committed as it runs (docs/adr/0010-verify-hot-path.md).
 */
export async function verifyPresence(
  deps: VerifyDeps,
  tenantId: string,
  input: VerifyBody,
): Promise<VerifyResult> {
  const presented = presentedCredentialId(input.assertion);
  const read = await deps.store.presence.readForVerify(tenantId, input.challengeId, presented);
  if (!read) {
    return {
      decision: 'CHALLENGE_NOT_FOUND',
      challengeId: input.challengeId,
      reason: 'no such challenge for this tenant',
    };
  }
  const { challenge } = read;
  if (challenge.status !== 'pending') return alreadyUsed(challenge.id);
  const now = deps.clock.now();
  const evaluation = evaluateAssertion(deps, challenge, input.assertion, now, {
    policy: await policyVersion(deps, tenantId, challenge.policyId),
    credential: read.credential,
  });
  // Before the transaction: a signer that cannot be sure of its key refuses (503) with the challenge untouched.
  if (evaluation.verified) await deps.signer.ensureFresh();
  try {
    // Every write of the settle is one compare-and-set statement: on PostgreSQL each commits as it
    // runs, so the tenant's receipt sequence row is locked for one statement only.
    return await deps.store.selfContainedWrites((tx) => settle(deps, tx, challenge, evaluation, now));
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
  deps: VerifyDeps,
  tx: StoreTx,
  challenge: ChallengeRecord,
  evaluation: Evaluation,
  now: number,
): Promise<VerifyResult> {
  if (!evaluation.verified) return settleDenied(deps, tx, challenge, now, evaluation);
  const receipt = sealReceipt(
    deps.signer,
    buildReceipt({ receiptId: newId(deps, 'rct'), challenge, ...evaluation, verifiedAt: now }),
  );
  const denial = await settleVerified(deps, tx, evaluation, receipt, now);
  if (denial) return settleDenied(deps, tx, challenge, now, denial);
  return {
    decision: 'PRESENCE_VERIFIED',
    challengeId: challenge.id,
    receiptId: receipt.id,
    receiptHashHex: receipt.hashHex,
  };
}

interface Denied {
  decision: Denial;
  reason: string;
  credential?: CredentialInUse | undefined;
}

/**
 * Advances the credential's counter with a compare-and-set and, in the same call, settles the
 * challenge and writes the receipt, usage and event. Another challenge signed by the same
 * authenticator may have moved the counter meanwhile: re-check against the fresh value a few times.
 * Returns the denial when the counter or the credential forbids it; nothing was written then.
 */
async function settleVerified(
  deps: VerifyDeps,
  tx: StoreTx,
  evaluation: Extract<Evaluation, { verified: true }>,
  receipt: ReceiptRecord,
  now: number,
): Promise<Denied | undefined> {
  let stored = evaluation.credential;
  const next = evaluation.assertion.signCount;
  const ignoreCounter = evaluation.policy.rules.counter === 'ignore';
  const usage = usageEvent(deps, receipt.tenantId, 'presence.verified', receipt.challengeId, now);
  const event = outboxEvent(
    deps,
    receipt.tenantId,
    'receipt.created',
    receiptCreatedEvent(receipt, evaluation.credential.credentialId),
    now,
  );
  for (let attempt = 0; attempt < 3; attempt++) {
    const credentialUse = {
      id: stored.id,
      expectedSignCount: stored.signCount,
      signCount: Math.max(next, stored.signCount),
      backedUp: evaluation.assertion.flags.BS,
    };
    const outcome = await tx.presence.settleVerified({ credentialUse, usedAt: now, receipt, usage, event });
    if (outcome.kind === 'settled') return undefined;
    if (outcome.kind === 'already-decided') throw new AlreadyDecided();
    const fresh = await tx.credentials.get(stored.tenantId, stored.id);
    if (!fresh || fresh.revokedAt !== null) {
      const reason = 'the credential was revoked during verification';
      return { decision: 'CREDENTIAL_REVOKED', reason, credential: stored };
    }
    if (!ignoreCounter && (next !== 0 || fresh.signCount !== 0) && next <= fresh.signCount) {
      const reason = `signCount ${next} is not above the stored ${fresh.signCount}`;
      return { decision: 'COUNTER_REGRESSION', reason, credential: fresh };
    }
    stored = fresh;
  }
  const reason = 'the credential counter kept changing concurrently';
  return { decision: 'COUNTER_REGRESSION', reason, credential: stored };
}

async function settleDenied(
  deps: VerifyDeps,
  tx: StoreTx,
  challenge: ChallengeRecord,
  now: number,
  denial: Denied,
): Promise<VerifyResult> {
  const { decision, reason } = denial;
  const outcome = await tx.presence.settleDenied({
    tenantId: challenge.tenantId,
    challengeId: challenge.id,
    settlement: {
      status: decision === 'CHALLENGE_EXPIRED' ? 'expired' : 'denied',
      usedAt: now,
      decision,
      reason,
      receiptId: null,
      credentialRef: denial.credential?.id ?? null,
    },
    usage: usageEvent(deps, challenge.tenantId, 'presence.denied', challenge.id, now),
    event: outboxEvent(
      deps,
      challenge.tenantId,
      'presence.denied',
      {
        challengeId: challenge.id,
        actionHashHex: challenge.actionHashHex,
        subject: challenge.subject,
        decision,
        reason,
      },
      now,
    ),
  });
  if (outcome === 'already-decided') throw new AlreadyDecided();
  return { decision, challengeId: challenge.id, reason };
}

/** The usage event recordUsage would write (one unit, sourced by the challenge). */
function usageEvent(deps: VerifyDeps, tenantId: string, meter: Meter, sourceId: string, at: number) {
  return { id: newId(deps, 'use'), tenantId, meter, quantity: 1, occurredAt: at, sourceId };
}

/** The outbox event recordEvent would write, typed by the same one table of event types. */
function outboxEvent<K extends WebhookEventType>(
  deps: VerifyDeps,
  tenantId: string,
  type: K,
  payload: WebhookEventData<K>,
  at: number,
) {
  return { id: newId(deps, 'evt'), tenantId, type, payload, createdAt: at };
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
