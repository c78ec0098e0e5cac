/**
 * The SDK against a real service over real HTTP (`app.listen({port: 0})` and fetch), on both
 * databases: the whole caller flow, errors as the service sends them, auto-pagination, and the
 * proof that a create whose response is lost on the wire is retried without doubling.
 */
import {
  computeActionHash,
  createPresenceClient,
  isPresenceVerified,
  PresenceApiError,
  verifyReceipt,
  type AuthenticationResponseJSON,
  type PresenceClient,
} from '@presence/sdk/node';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService } from './support/test-service.js';

/** The soft authenticator's assertion, typed as the browser's JSON. */
const assertFor = (authenticator: SoftAuthenticator, challenge: string) =>
  authenticator.assert({ challenge }) as unknown as AuthenticationResponseJSON;

/** A fetch that delivers the request but "loses" the first response of each listed path. */
function losingFetch(paths: string[]) {
  const lost = new Set<string>();
  const calls: string[] = [];
  const fetchFn: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    calls.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    const response = await fetch(input, init);
    if (paths.includes(url.pathname) && !lost.has(url.pathname)) {
      lost.add(url.pathname);
      await response.arrayBuffer();
      throw new TypeError('fetch failed: socket hang up (simulated after the server answered)');
    }
    return response;
  };
  return { fetchFn, calls };
}

describeEachDialect('@presence/sdk client against the service', (dialect) => {
  const s = useTestService(dialect);
  let baseUrl: string;
  let client: PresenceClient;
  beforeAll(async () => {
    baseUrl = await s.listen();
    client = createPresenceClient({ baseUrl, apiKey: s.apiKey, retryBaseDelayMs: 5 });
  });

  async function enroll(
    c: PresenceClient,
    subject: string,
    authenticator = new SoftAuthenticator(RP_ID, ORIGIN),
  ) {
    const options = await c.credentials.createOptions({ subject });
    const credential = authenticator.register({ challenge: options.publicKey.challenge });
    const created = await c.credentials.register({ registrationId: options.registrationId, credential });
    return { authenticator, credential: created.credential };
  }

  it('runs the caller flow: enroll, challenge, verify, receipt that verifies offline', async () => {
    const { authenticator, credential } = await enroll(client, 'sdk-user');
    expect(credential).toMatchObject({ subject: 'sdk-user', credentialId: authenticator.id });
    const action = { type: 'payout', amount: '10.00', currency: 'EUR', to: 'acct_1' };
    const actionHashHex = await computeActionHash(action);
    const challenge = await client.presence.createChallenge({ actionHashHex, subject: 'sdk-user' });
    expect(challenge).toMatchObject({ actionHashHex, status: 'pending' });
    const assertion = assertFor(authenticator, challenge.publicKey.challenge);
    const result = await client.presence.verify({ challengeId: challenge.challengeId, assertion });
    expect(isPresenceVerified(result)).toBe(true);
    if (!isPresenceVerified(result)) return;
    const signed = await client.receipts.get(result.receiptId);
    expect(signed.receiptHashHex).toBe(result.receiptHashHex);
    expect(await client.presence.getChallenge(challenge.challengeId)).toMatchObject({
      status: 'verified',
    });
    expect((await client.presence.getChallengeReceipt(challenge.challengeId)).receipt.receiptId).toBe(
      result.receiptId,
    );
    const { keys } = await createPresenceClient({ baseUrl }).wellKnown.keys();
    expect(verifyReceipt(signed, { keys }).valid).toBe(true);
    expect(
      (
        await client.receipts.verify({
          receiptId: result.receiptId,
          receiptHashHex: result.receiptHashHex,
        })
      ).valid,
    ).toBe(true);
  });

  it('retries a challenge whose response was lost, and the service creates it once', async () => {
    const { fetchFn, calls } = losingFetch(['/v1/presence/challenge']);
    const flaky = createPresenceClient({
      baseUrl,
      apiKey: s.apiKey,
      fetch: fetchFn,
      retryBaseDelayMs: 5,
    });
    const before = (await s.testStore.rows('challenges')).length;
    const challenge = await flaky.presence.createChallenge({
      actionHashHex: await computeActionHash({ n: 'lost' }),
    });
    expect(calls.filter((c) => c === 'POST /v1/presence/challenge')).toHaveLength(2);
    const rows = await s.testStore.rows('challenges');
    expect(rows).toHaveLength(before + 1);
    expect(rows.map((r) => r.id)).toContain(challenge.challengeId);
  });

  it('retries a verify whose response was lost and still gets the original decision', async () => {
    const { authenticator } = await enroll(client, 'sdk-lost-verify');
    const challenge = await client.presence.createChallenge({
      actionHashHex: await computeActionHash({ n: 'lost-verify' }),
      subject: 'sdk-lost-verify',
    });
    const { fetchFn } = losingFetch(['/v1/presence/verify']);
    const flaky = createPresenceClient({
      baseUrl,
      apiKey: s.apiKey,
      fetch: fetchFn,
      retryBaseDelayMs: 5,
    });
    const assertion = assertFor(authenticator, challenge.publicKey.challenge);
    const result = await flaky.presence.verify({ challengeId: challenge.challengeId, assertion });
    expect(result.decision).toBe('PRESENCE_VERIFIED');
  });

  it('surfaces problems as PresenceApiError with code, detail, fields and the request id', async () => {
    const bad = createPresenceClient({ baseUrl, apiKey: 'prs_not_a_key' });
    const unauthorized = await bad.policy.get().catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(PresenceApiError);
    expect(unauthorized).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((unauthorized as PresenceApiError).requestId).toMatch(/^req_/);
    const invalid = await client.presence
      .createChallenge({ actionHashHex: 'nothex' })
      .catch((e: unknown) => e);
    expect(invalid).toMatchObject({
      status: 400,
      code: 'invalid_request',
      errors: [{ field: 'body/actionHashHex' }],
    });
    const refused = await client.presence
      .createChallenge({ actionHashHex: 'a'.repeat(64), subject: 'nobody-enrolled' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 422, code: 'policy_violation' });
    const missing = await client.receipts.get('rct_00000000000000000000000000').catch((e: unknown) => e);
    expect(missing).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('iterates every credential and key across pages', async () => {
    for (let i = 0; i < 5; i++) await enroll(client, 'sdk-many');
    const listed = [];
    for await (const credential of client.credentials.list({ subject: 'sdk-many', limit: 2 }))
      listed.push(credential);
    expect(listed).toHaveLength(5);
    expect(new Set(listed.map((c) => c.id)).size).toBe(5);
    const pages = [];
    for await (const page of client.credentials.list({ subject: 'sdk-many', limit: 2 }).pages())
      pages.push(page.data.length);
    expect(pages).toEqual([2, 2, 1]);
    const keyIds = (await client.keys.list({ limit: 1 }).toArray()).map((k) => k.keyId);
    expect(keyIds.length).toBeGreaterThanOrEqual(1);
    expect(new Set(keyIds).size).toBe(keyIds.length);
  });

  it('manages keys and policy: create shows the secret once, rotate and revoke, policy versions', async () => {
    const created = await client.keys.create({ name: 'sdk', scopes: ['receipts:read'] });
    expect(created.secret).toMatch(/^presence_[0-9A-Za-z]{49}$/);
    const rotated = await client.keys.rotate(created.key.keyId, { gracePeriodSeconds: 60 });
    expect(rotated.previous.keyId).toBe(created.key.keyId);
    expect((await client.keys.revoke(rotated.key.keyId)).revokedAt).not.toBeNull();
    const policy = await client.policy.get();
    const next = await client.policy.put({
      rpId: policy.rules.rpId,
      allowedOrigins: policy.rules.allowedOrigins,
    });
    expect(next.version).toBe(policy.version + 1);
  });

  it('lists receipts through the auto-paginating iterator', async () => {
    const { authenticator } = await enroll(client, 'sdk-listing');
    for (let i = 0; i < 3; i++) {
      const challenge = await client.presence.createChallenge({
        actionHashHex: await computeActionHash({ listing: i }),
        subject: 'sdk-listing',
      });
      const assertion = assertFor(authenticator, challenge.publicKey.challenge);
      expect((await client.presence.verify({ challengeId: challenge.challengeId, assertion })).decision).toBe(
        'PRESENCE_VERIFIED',
      );
    }
    const seen = [];
    for await (const item of client.receipts.list({ subject: 'sdk-listing', limit: 2, order: 'asc' }))
      seen.push(item);
    expect(seen).toHaveLength(3);
    expect(seen.every((item) => item.receipt.subject === 'sdk-listing')).toBe(true);
  });
});
