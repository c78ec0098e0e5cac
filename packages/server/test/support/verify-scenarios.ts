/**
 * Verify scenarios played through the live path (domain/presence/verify-presence.ts) on a real
 * service: what a caller sees (decision, reason, receipt) and what is stored afterwards (the
 * challenge's state, its credential, the counter). The decision table
 * (verify-decision-table.ts) and the dialect property both play them.
 */
import type { Decision } from '@presence/contract';
import fc from 'fast-check';
import { expect } from 'vitest';
import { verifyPresence } from '../../src/domain/presence/verify-presence.js';
import { FLAG, SoftAuthenticator, type AssertOptions } from './soft-authenticator.js';
import { ORIGIN, RP_ID, type TestService } from './test-service.js';

export const MUTATIONS = {
  none: () => ({}),
  challengeBytes: () => ({ challenge: 'AAAA' }),
  origin: () => ({ origin: 'https://evil.example' }),
  noUv: () => ({ flags: FLAG.UP }),
  noUp: () => ({ flags: FLAG.UV }),
  type: () => ({ type: 'webauthn.create' }),
  rpId: () => ({ rpId: 'evil.example' }),
  crossOrigin: () => ({ crossOrigin: true }),
  wrongUserHandle: () => ({ userHandle: Buffer.from('someone-else').toString('base64url') }),
  signature: () => ({}),
  rawIdMalformed: () => ({}),
} satisfies Record<string, () => Partial<AssertOptions>>;

export interface Scenario {
  /** The challenge named: pending, expired by the time of the call, already decided, or no such id. */
  challenge: 'pending' | 'expired' | 'used' | 'missing';
  /** Whose challenge: the signer's subject, another enrolled subject's, or no subject. */
  subject: 'named' | 'other' | 'none';
  /** The signing credential: enrolled, revoked after the challenge was issued, or never enrolled. */
  credential: 'active' | 'revoked' | 'unknown';
  /** The assertion's signCount: above the stored one, below it (stored 50, sent 7), or 0 (no counter). */
  counter: 'fresh' | 'regression' | 'zero';
  /** What is wrong with the assertion. */
  mutation: keyof typeof MUTATIONS;
}

export const BASE_SCENARIO: Scenario = {
  challenge: 'pending',
  subject: 'named',
  credential: 'active',
  counter: 'fresh',
  mutation: 'none',
};

export const scenarios: fc.Arbitrary<Scenario> = fc.record({
  challenge: fc.constantFrom('pending', 'expired', 'used', 'missing'),
  subject: fc.constantFrom('named', 'other', 'none'),
  credential: fc.constantFrom('active', 'revoked', 'unknown'),
  counter: fc.constantFrom('fresh', 'regression', 'zero'),
  mutation: fc.constantFrom(...(Object.keys(MUTATIONS) as (keyof typeof MUTATIONS)[])),
});

/** What a caller and an auditor see after the call. */
export interface Outcome {
  decision: Decision;
  reason: string | undefined;
  /** The answer carries a receipt id. */
  receipt: boolean;
  /** The answer names the challenge id that was sent. */
  challengeIdEchoed: boolean;
  /** The issued challenge afterwards (for "missing", the challenge that was issued but not named). */
  stored: { status: string; decision: string | null; reason: string | null } | undefined;
  /** Which credential the stored challenge names: none, the signer's enrolled one, or another. */
  storedCredentialRef: 'none' | 'mine' | 'other';
  receiptStored: boolean;
  /** The enrolled credential's stored signCount afterwards. */
  signCount: number | undefined;
}

export type Tenant = { tenantId: string; apiKey: string };

async function enroll(s: TestService, key: string, subject: string) {
  const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
  const options = await s.request('POST', '/v1/presence/credentials/options', { subject }, key);
  const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
  const body = { registrationId: options.json.registrationId, credential };
  const created = await s.request('POST', '/v1/presence/credentials', body, key);
  expect(created.status).toBe(201);
  return { authenticator, id: created.json.credential.id as string };
}

async function issue(s: TestService, key: string, subject: string | undefined, ttlSeconds = 300) {
  const body = { actionHashHex: 'ab'.repeat(32), ttlSeconds, ...(subject ? { subject } : {}) };
  const res = await s.request('POST', '/v1/presence/challenge', body, key);
  expect(res.status).toBe(201);
  return res.json as { challengeId: string; publicKey: { challenge: string } };
}

/** Plays one scenario for one tenant through the live path; `tag` keeps subjects apart. */
export async function playScenario(
  s: TestService,
  tenant: Tenant,
  sc: Scenario,
  tag: string,
): Promise<Outcome> {
  const deps = s.composed.deps;
  const key = tenant.apiKey;
  const subject = `${tag}-user`;
  const mine = await enroll(s, key, subject);
  await enroll(s, key, `${tag}-other`);
  const signer = sc.credential === 'unknown' ? { authenticator: new SoftAuthenticator(RP_ID, ORIGIN) } : mine;
  const forSubject = sc.subject === 'named' ? subject : sc.subject === 'other' ? `${tag}-other` : undefined;
  if (sc.counter === 'regression' && sc.credential === 'active') {
    const warm = await issue(s, key, subject);
    const assertion = mine.authenticator.assert({ challenge: warm.publicKey.challenge, signCount: 50 });
    await verifyPresence(deps, tenant.tenantId, { challengeId: warm.challengeId, assertion });
  }
  const c = await issue(s, key, forSubject, sc.challenge === 'expired' ? 30 : 300);
  if (sc.challenge === 'used') {
    const first = signer.authenticator.assert({ challenge: c.publicKey.challenge, signCount: 60 });
    await verifyPresence(deps, tenant.tenantId, { challengeId: c.challengeId, assertion: first });
  }
  if (sc.credential === 'revoked') {
    // Revoked after the challenge was issued (a subject with no active credential gets none).
    const revoked = await s.request('DELETE', `/v1/presence/credentials/${mine.id}`, undefined, key);
    expect(revoked.status).toBe(200);
  }
  const signCount = sc.counter === 'regression' ? 7 : sc.counter === 'zero' ? 0 : 100;
  const assertion: any = signer.authenticator.assert({
    challenge: c.publicKey.challenge,
    signCount,
    ...MUTATIONS[sc.mutation](),
  });
  if (sc.mutation === 'signature') {
    const signature = Buffer.from(String(assertion.response.signature), 'base64url');
    assertion.response.signature = signature.reverse().toString('base64url');
  }
  if (sc.mutation === 'rawIdMalformed') assertion.rawId = '!!!';
  const challengeId = sc.challenge === 'missing' ? 'chl_00000000000000000000000000' : c.challengeId;
  if (sc.challenge === 'expired') s.clock.advance(60);
  try {
    const result: any = await verifyPresence(deps, tenant.tenantId, { challengeId, assertion });
    const stored = await deps.store.challenges.get(tenant.tenantId, c.challengeId);
    const credential = await deps.store.credentials.get(tenant.tenantId, mine.id);
    return {
      decision: result.decision,
      reason: result.reason,
      receipt: result.receiptId !== undefined,
      challengeIdEchoed: result.challengeId === challengeId,
      stored: stored && { status: stored.status, decision: stored.decision, reason: stored.reason },
      storedCredentialRef:
        stored?.credentialRef === null ? 'none' : stored?.credentialRef === mine.id ? 'mine' : 'other',
      receiptStored: stored?.receiptId !== null && stored?.receiptId !== undefined,
      signCount: credential?.signCount,
    };
  } finally {
    if (sc.challenge === 'expired') s.clock.advance(-60);
  }
}
