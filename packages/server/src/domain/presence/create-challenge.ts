import type { CreateChallengeBody } from '@presence/contract';
import { deriveChallenge } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { toB64Url, toIso } from '../encoding.js';
import { newId } from '../ids.js';
import type { AllowedCredential, ChallengeRecord } from './ports.js';
import { claimUniqueAction } from '../approvals/unique-actions.js';
import { currentPolicyForChallenge } from '../policy/get-policy.js';
import { challengeQuota, settleChallengeQuota } from '../billing/reserve-challenge-quota.js';

/** The longest a challenge may live, whatever the policy or request says. */
export const MAX_CHALLENGE_TTL_SECONDS = 600;

/** The most credentials one challenge lists in allowCredentials (a subject's first, by row id). */
export const MAX_ALLOWED_CREDENTIALS = 100;

/** A challenge for an approval's hosted page: the undecided approvers' credentials are allowed. */
export interface ApprovalCeremony {
  allowed: AllowedCredential[];
}

/** What creating a challenge uses. */
export type ChallengeDeps = Pick<
  Deps,
  'store' | 'clock' | 'random' | 'billing' | 'currentPolicies' | 'plans'
>;

/**
 * Issues a single-use challenge whose bytes commit to the action hash (docs/api-contract.md#2-the-action-is-inside-the-signed-bytes). With a
 * subject, only that subject's active credentials are allowed.
 */
export async function createChallenge(
  deps: ChallengeDeps,
  tenantId: string,
  input: CreateChallengeBody,
  ceremony?: ApprovalCeremony,
) {
  const policy = await currentPolicyForChallenge(deps, tenantId);
  const rules = policy.rules;
  const allowed =
    ceremony?.allowed ??
    (input.subject === undefined
      ? []
      : await deps.store.presence.allowedCredentials(tenantId, input.subject, MAX_ALLOWED_CREDENTIALS));
  if (input.subject !== undefined && allowed.length === 0) {
    throw new DomainError(
      'policy_violation',
      'the subject has no active credentials; enroll an authenticator first',
      [{ field: '/subject', message: 'no active credentials' }],
    );
  }
  const ttl = Math.min(input.ttlSeconds ?? rules.challengeTtlSeconds, MAX_CHALLENGE_TTL_SECONDS);
  const nonce = deps.random.bytes(32);
  const challenge = deriveChallenge(Buffer.from(input.actionHashHex, 'hex'), nonce);
  const now = deps.clock.now();
  const record: ChallengeRecord = {
    id: newId(deps, 'chl'),
    tenantId,
    actionHashHex: input.actionHashHex,
    subject: input.subject ?? null,
    purpose: input.purpose ?? null,
    nonceB64Url: toB64Url(nonce),
    challengeB64Url: toB64Url(challenge),
    allowCredentialIds: allowed.map((c) => c.credentialId),
    policyId: policy.id,
    createdAt: now,
    expiresAt: now + ttl * 1000,
    status: 'pending',
    usedAt: null,
    decision: null,
    reason: null,
    receiptId: null,
    credentialRef: null,
  };
  const usage = {
    id: newId(deps, 'use'),
    tenantId,
    meter: 'challenges.created',
    quantity: 1,
    occurredAt: now,
    sourceId: record.id,
  };
  // Policy rule uniqueActions: only when on (a challenge of an approval's page is covered by the
  // approval's own claim). Its own statement, before the challenge: a full quota leaves the claim
  // to lapse with the challenge's expiry.
  if (rules.uniqueActions === true && ceremony === undefined) {
    const holder = { holderId: record.id, until: record.expiresAt };
    await deps.store.transaction((tx) =>
      claimUniqueAction(deps, tx, tenantId, record.actionHashHex, holder, true),
    );
  }
  // Each write is one self-contained statement (the quota, challenge, usage and rollups in one; a
  // threshold marker with its event in another): on PostgreSQL each commits as it runs, so the
  // tenant's quota counter row is locked for one statement only. A full quota writes nothing.
  await deps.store.selfContainedWrites(async (tx) => {
    const quota = await challengeQuota(deps, tx, tenantId, now);
    // One call: the challenge, its usage and, last, the tenant's quota counter and rollups.
    const counter = await tx.presence.createChallenge({
      challenge: record,
      usage,
      quota: { periodStart: quota.period.start, limit: quota.limit },
    });
    await settleChallengeQuota(deps, tx, tenantId, quota, counter, now);
  });
  return {
    challengeId: record.id,
    actionHashHex: record.actionHashHex,
    status: 'pending' as const,
    expiresAt: toIso(record.expiresAt),
    publicKey: {
      challenge: record.challengeB64Url,
      timeout: ttl * 1000,
      rpId: rules.rpId,
      allowCredentials: allowed.map((c) => ({
        id: c.credentialId,
        type: 'public-key' as const,
        transports: c.transports,
      })),
      userVerification: 'required',
    },
  };
}
