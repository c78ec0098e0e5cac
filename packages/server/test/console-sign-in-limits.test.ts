/**
 * The console's anonymous sign-in cannot be used to make the service store without bound, on
 * both databases: each client address has its own window (shared by instances through Redis when
 * REDIS_URL is set), all addresses together have one, a
 * refused call stores nothing, and sign-in challenges that expired without a receipt are deleted
 * when the next sign-in starts, while a used one (its receipt) stays. Sign-ins take nothing from
 * a monthly quota, so a flood of them cannot lock members out of the console until the month ends.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { depsFromStore } from '../src/compose.js';
import { DEFAULT_BILLING_SETTINGS, FREE_PLAN } from '../src/domain/billing/billing-settings.js';
import { DEFAULT_CONSOLE_TIMES } from '../src/domain/console/console-settings.js';
import { consoleSettingsResolver } from '../src/domain/console/resolve-console-settings.js';
import { startSignIn } from '../src/domain/console/start-sign-in.js';
import { openTestStore, type TestStore } from '../src/storage/testing.js';
import { SIGN_IN_ACTION_HASH_HEX } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { redisAvailable, testRedisPrefix, testRedisUrl } from './support/redis.js';
import { startTestService, useTestService, type TestService } from './support/test-service.js';

const redisUp = await redisAvailable('shared sign-in limits');

const PER_ADDRESS = 3;
const TOTAL = 5;

/** The sign-in challenges stored, and an anonymous POST /console/api/sign-in/options from an address. */
function signInHelpers(s: TestService) {
  return {
    signInChallenges: async () =>
      (await s.testStore.rows('challenges')).filter((c) => c.action_hash_hex === SIGN_IN_ACTION_HASH_HEX),
    options: async (remoteAddress: string) => {
      const res = await s.composed.app.inject({
        method: 'POST',
        url: '/console/api/sign-in/options',
        remoteAddress,
        headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        payload: '{}',
      });
      return { status: res.statusCode, json: res.json(), headers: res.headers };
    },
  };
}

describeEachDialect('console sign-in limits', (dialect) => {
  const s = useTestService(dialect, {
    env: {
      PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE: String(PER_ADDRESS),
      PRESENCE_RATE_LIMIT_SIGN_IN_TOTAL_PER_MINUTE: String(TOTAL),
    },
  });
  const { signInChallenges, options } = signInHelpers(s);

  it('limits each address, then all addresses together, storing nothing once refused', async () => {
    const before = (await signInChallenges()).length;
    const first = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) first.push(await options('203.0.113.1'));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    const refused = first.at(-1)!;
    expect(refused.headers['content-type']).toContain('application/problem+json');
    expect(refused.json.code).toBe('rate_limited');
    expect(refused.json.detail).toContain('from this address');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(first[0]!.headers['ratelimit-limit']).toBe(String(PER_ADDRESS));

    // Two more addresses reach the total (3 + 2 = 5); the next address is refused by it.
    expect((await options('203.0.113.2')).status).toBe(200);
    expect((await options('2001:db8::7')).status).toBe(200);
    const overall = await options('198.51.100.9');
    expect(overall.status).toBe(429);
    expect(overall.json.detail).toContain('from all addresses');
    expect((await signInChallenges()).length).toBe(before + TOTAL);
  });
});

describeEachDialect('console sign-in challenges', (dialect) => {
  const s = useTestService(dialect, {
    env: { PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE: '0', PRESENCE_RATE_LIMIT_SIGN_IN_TOTAL_PER_MINUTE: '0' },
  });
  const { signInChallenges, options } = signInHelpers(s);

  it('deletes sign-in challenges that expired without a receipt (unanswered or denied); a used one stays', async () => {
    const settings = await s.composed.consoleSettings();
    const member = new ConsoleClient(s.composed.app, settings);
    const { inviteUrl } = await createInvite(s.composed.deps, settings, {
      tenantId: s.tenantId,
      role: 'owner',
      createdBy: null,
    });
    expect((await member.join(inviteUrl, 'Owner')).status).toBe(200);
    expect((await member.signIn()).status).toBe(200);
    for (let i = 0; i < 4; i++) expect((await options(`203.0.113.${i + 1}`)).status).toBe(200);
    const used = (await signInChallenges()).filter((c) => c.receipt_id !== null).map((c) => c.id);
    expect(used).toHaveLength(1);
    const unanswered = (await signInChallenges()).filter((c) => c.receipt_id === null).length;
    expect(unanswered).toBe(4);
    // A stranger's passkey: the challenge is answered, denied, and backs no receipt.
    const stranger = new ConsoleClient(s.composed.app, settings);
    expect((await stranger.signIn()).status).toBe(403);
    expect((await signInChallenges()).filter((c) => c.status === 'denied')).toHaveLength(1);

    s.clock.advance(600 + 1); // past every challenge's expiry
    expect((await options('192.0.2.1')).status).toBe(200);
    const after = await signInChallenges();
    expect(after.filter((c) => c.receipt_id === null)).toHaveLength(1); // the one just made
    expect(after.filter((c) => c.receipt_id !== null).map((c) => c.id)).toEqual(used);
  });
});

describeEachDialect('console sign-ins and the monthly quota', (dialect) => {
  let testStore: TestStore;
  beforeAll(async () => {
    testStore = await openTestStore(dialect);
  });
  afterAll(async () => testStore?.cleanup());

  it('the console tenant has no quota, whatever the default plan', async () => {
    const billing = { ...DEFAULT_BILLING_SETTINGS, defaultPlan: { ...FREE_PLAN, monthlyChallengeQuota: 2 } };
    const deps = await depsFromStore(testStore.store, randomBytes(32), undefined, {}, billing);
    const settings = await consoleSettingsResolver(deps, {
      origin: 'http://localhost:8080',
      ...DEFAULT_CONSOLE_TIMES,
    })();
    for (let i = 0; i < 5; i++) {
      expect((await startSignIn(deps, settings)).publicKey.rpId).toBe('localhost');
    }
  });
});

describe.skipIf(!redisUp)('console sign-in limits shared through Redis', () => {
  it('two instances count one address against one window', async () => {
    const env = {
      REDIS_URL: testRedisUrl(),
      PRESENCE_REDIS_PREFIX: testRedisPrefix(),
      PRESENCE_RATE_LIMIT_SIGN_IN_PER_MINUTE: String(PER_ADDRESS),
    };
    const a = await startTestService('sqlite', { env });
    const b = await startTestService('sqlite', { env });
    try {
      const statuses = [];
      for (let i = 0; i < PER_ADDRESS + 1; i++) {
        statuses.push((await signInHelpers(i % 2 === 0 ? a : b).options('203.0.113.50')).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await signInHelpers(a).options('203.0.113.51')).status).toBe(200);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
