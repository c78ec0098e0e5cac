/**
 * The lean verify path (domain/presence/verify-presence.ts: one read, cached policy, one write call)
 * decides exactly as the previous path did (test/support/previous-verify-presence.ts, frozen). For
 * generated scenarios covering every denial, the same scenario is played against two tenants of one
 * service, one through each path; decisions, reasons and what was stored must agree.
 */
import { DECISIONS } from '@presence/contract';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPresence } from '../src/domain/presence/verify-presence.js';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { previousVerifyPresence } from './support/previous-verify-presence.js';
import { FLAG, SoftAuthenticator, type AssertOptions } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, startTestService, type TestService } from './support/test-service.js';

const postgresReady = await pgAvailable();

const MUTATIONS: Record<string, () => Partial<AssertOptions>> = {
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
};

const scenario = fc.record({
  challenge: fc.constantFrom('pending', 'expired', 'used', 'missing'),
  subject: fc.constantFrom('named', 'other', 'none'),
  credential: fc.constantFrom('active', 'revoked', 'unknown'),
  counter: fc.constantFrom('fresh', 'regression', 'zero'),
  mutation: fc.constantFrom(...Object.keys(MUTATIONS)),
});
type Scenario = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

const BASE: Scenario = {
  challenge: 'pending',
  subject: 'named',
  credential: 'active',
  counter: 'fresh',
  mutation: 'none',
};
/** One scenario per decision, always run first; the generated ones mix them. */
const OVERRIDES: Partial<Scenario>[] = [
  {},
  { counter: 'regression' },
  { counter: 'zero', subject: 'none' },
  { challenge: 'missing' },
  { challenge: 'expired' },
  { challenge: 'used' },
  { credential: 'unknown' },
  { credential: 'revoked' },
  { subject: 'other' },
  ...Object.keys(MUTATIONS).map((mutation) => ({ mutation })),
];
const EXAMPLES: [Scenario][] = OVERRIDES.map((o) => [{ ...BASE, ...o }]);

type Path = typeof previousVerifyPresence;

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(
    `lean verify = previous verify (${dialect})`,
    () => {
      let s: TestService;
      let lean: { tenantId: string; apiKey: string };
      let previous: { tenantId: string; apiKey: string };
      let run = 0;
      beforeAll(async () => {
        s = await startTestService(dialect);
        lean = { tenantId: s.tenantId, apiKey: s.apiKey };
        previous = await s.newTenant();
      });
      afterAll(async () => {
        await s?.close();
      });

      async function enroll(key: string, subject: string) {
        const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
        const options = await s.request('POST', '/v1/presence/credentials/options', { subject }, key);
        const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
        const created = await s.request(
          'POST',
          '/v1/presence/credentials',
          { registrationId: options.json.registrationId, credential },
          key,
        );
        expect(created.status).toBe(201);
        return { authenticator, id: created.json.credential.id as string };
      }

      async function challenge(key: string, subject: string | undefined, ttlSeconds = 300) {
        const body = { actionHashHex: 'ab'.repeat(32), ttlSeconds, ...(subject ? { subject } : {}) };
        const res = await s.request('POST', '/v1/presence/challenge', body, key);
        expect(res.status).toBe(201);
        return res.json as { challengeId: string; publicKey: { challenge: string } };
      }

      /** Plays one scenario for one tenant through one path; returns what a caller and an auditor see. */
      async function play(
        tenant: { tenantId: string; apiKey: string },
        path: Path,
        sc: Scenario,
        tag: string,
      ) {
        const key = tenant.apiKey;
        const subject = `${tag}-user`;
        const mine = await enroll(key, subject);
        const other = await enroll(key, `${tag}-other`);
        const signer =
          sc.credential === 'unknown' ? { authenticator: new SoftAuthenticator(RP_ID, ORIGIN) } : mine;
        const forSubject =
          sc.subject === 'named' ? subject : sc.subject === 'other' ? `${tag}-other` : undefined;
        void other;
        if (sc.counter === 'regression' && sc.credential === 'active') {
          const warm = await challenge(key, subject);
          const assertion = mine.authenticator.assert({ challenge: warm.publicKey.challenge, signCount: 50 });
          await verifyPresence(s.composed.deps, tenant.tenantId, {
            challengeId: warm.challengeId,
            assertion,
          });
        }
        const c = await challenge(key, forSubject, sc.challenge === 'expired' ? 30 : 300);
        if (sc.challenge === 'used') {
          const first = signer.authenticator.assert({ challenge: c.publicKey.challenge, signCount: 60 });
          await path(s.composed.deps, tenant.tenantId, { challengeId: c.challengeId, assertion: first });
        }
        if (sc.credential === 'revoked') {
          // Revoked after the challenge was issued (a subject with no active credential gets none).
          const revoked = await s.request('DELETE', `/v1/presence/credentials/${mine.id}`, undefined, key);
          expect(revoked.status).toBe(200);
        }
        const signCount = sc.counter === 'regression' ? 7 : sc.counter === 'zero' ? 0 : 100;
        const overrides = MUTATIONS[sc.mutation]!();
        const assertion: any = signer.authenticator.assert({
          challenge: c.publicKey.challenge,
          signCount,
          ...overrides,
        });
        if (sc.mutation === 'signature') {
          assertion.response.signature = Buffer.from(String(assertion.response.signature), 'base64url')
            .reverse()
            .toString('base64url');
        }
        if (sc.mutation === 'rawIdMalformed') assertion.rawId = '!!!';
        const challengeId = sc.challenge === 'missing' ? 'chl_00000000000000000000000000' : c.challengeId;
        if (sc.challenge === 'expired') s.clock.advance(60);
        try {
          const result: any = await path(s.composed.deps, tenant.tenantId, { challengeId, assertion });
          const stored = await s.composed.deps.store.challenges.get(tenant.tenantId, c.challengeId);
          const credential = await s.composed.deps.store.credentials.get(tenant.tenantId, mine.id);
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

      it('decides identically on generated inputs, every denial included', async () => {
        const seen = new Set<string>();
        await fc.assert(
          fc.asyncProperty(scenario, async (sc) => {
            const tag = `r${run++}`;
            const a = await play(lean, verifyPresence, sc, `${tag}a`);
            const b = await play(previous, previousVerifyPresence, sc, `${tag}b`);
            seen.add(a.decision);
            expect(a).toEqual(b);
          }),
          { numRuns: 80, seed: 1010, examples: EXAMPLES },
        );
        // The generator reaches every decision, each denial included (a failure here means lost coverage).
        for (const decision of DECISIONS) {
          expect(seen, decision).toContain(decision);
        }
      }, 240_000);
    },
  );
}
