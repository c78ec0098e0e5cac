import { computeActionHashSync as computeActionHash, verifyReceipt } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { FLAG } from './support/soft-authenticator.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const payout = { type: 'payout', amount: '250.00', currency: 'EUR', iban: 'DE89370400440532013000' };

describeEachDialect('presence gate', (dialect) => {
  const s = useTestService(dialect);

  async function challengeFor(subject?: string, extra: Record<string, unknown> = {}) {
    const res = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: computeActionHash(payout),
      ...(subject ? { subject } : {}),
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.json;
  }

  it('enrolls, challenges, verifies and issues a receipt that verifies offline', async () => {
    const { authenticator, credential } = await s.enroll('user-1');
    expect(credential).toMatchObject({
      subject: 'user-1',
      attestationFormat: 'none',
      credentialId: authenticator.id,
    });
    const challenge = await challengeFor('user-1');
    expect(challenge.publicKey).toMatchObject({ userVerification: 'required', rpId: 'app.example' });
    expect(challenge.publicKey.allowCredentials).toEqual([
      { id: authenticator.id, type: 'public-key', transports: ['internal'] },
    ]);
    const assertion = authenticator.assert({ challenge: challenge.publicKey.challenge });
    const verified = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion,
    });
    expect(verified.status).toBe(200);
    expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    const receipt = await s.request('GET', `/v1/presence/receipts/${verified.json.receiptId}`);
    expect(receipt.json.receiptHashHex).toBe(verified.json.receiptHashHex);
    expect(receipt.json.receipt).toMatchObject({
      actionHashHex: computeActionHash(payout),
      origin: ORIGIN,
      subject: 'user-1',
    });
    const keys = await s.request('GET', '/.well-known/presence/keys.json', undefined, '');
    const report = verifyReceipt(receipt.json, { keys: keys.json.keys });
    expect(report).toMatchObject({ valid: true });
    const online = await s.request('POST', '/v1/presence/receipts/verify', {
      receiptId: verified.json.receiptId,
      receiptHashHex: verified.json.receiptHashHex,
    });
    expect(online.json.valid).toBe(true);
    const byChallenge = await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}/receipt`);
    expect(byChallenge.json.receiptHashHex).toBe(verified.json.receiptHashHex);
    const status = await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}`);
    expect(status.json).toMatchObject({
      status: 'verified',
      decision: 'PRESENCE_VERIFIED',
      receiptId: verified.json.receiptId,
    });
  });

  it('consumes a challenge on first use: a replay is CHALLENGE_ALREADY_USED', async () => {
    const { authenticator } = await s.enroll('user-replay');
    const challenge = await challengeFor('user-replay');
    const assertion = authenticator.assert({ challenge: challenge.publicKey.challenge });
    const first = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion,
    });
    const second = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion,
    });
    expect(first.json.decision).toBe('PRESENCE_VERIFIED');
    expect(second.json.decision).toBe('CHALLENGE_ALREADY_USED');
  });

  it('decides exactly once under 25 concurrent verify calls', async () => {
    const { authenticator } = await s.enroll('user-race');
    const challenge = await challengeFor('user-race');
    const assertion = authenticator.assert({ challenge: challenge.publicKey.challenge });
    const results = await Promise.all(
      Array.from({ length: 25 }, () =>
        s.request('POST', '/v1/presence/verify', { challengeId: challenge.challengeId, assertion }),
      ),
    );
    const decisions = results.map((r) => r.json.decision);
    expect(decisions.filter((d) => d === 'PRESENCE_VERIFIED')).toHaveLength(1);
    expect(decisions.filter((d) => d === 'CHALLENGE_ALREADY_USED')).toHaveLength(24);
    expect(
      (await s.testStore.rows('receipts')).filter((r: any) => r.challenge_id === challenge.challengeId),
    ).toHaveLength(1);
  });

  it('denies a wrong challenge, a foreign origin, missing UV and a bad signature — and consumes the challenge', async () => {
    const { authenticator } = await s.enroll('user-deny');
    const cases: [Record<string, unknown>, string][] = [
      [{ challenge: 'AAAA' }, 'CHALLENGE_MISMATCH'],
      [{ origin: 'https://evil.example' }, 'ORIGIN_NOT_ALLOWED'],
      [{ flags: FLAG.UP }, 'USER_NOT_VERIFIED'],
      [{ flags: FLAG.UV }, 'USER_NOT_PRESENT'],
      [{ type: 'webauthn.create' }, 'TYPE_MISMATCH'],
      [{ rpId: 'evil.example' }, 'RP_ID_MISMATCH'],
      [{ crossOrigin: true }, 'CROSS_ORIGIN_NOT_ALLOWED'],
    ];
    for (const [options, decision] of cases) {
      const challenge = await challengeFor('user-deny');
      const assertion = authenticator.assert({ challenge: challenge.publicKey.challenge, ...options });
      const res = await s.request('POST', '/v1/presence/verify', {
        challengeId: challenge.challengeId,
        assertion,
      });
      expect(res.json.decision, JSON.stringify(options)).toBe(decision);
      expect(res.json.receiptId).toBeUndefined();
      const status = await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}`);
      expect(status.json).toMatchObject({ status: 'denied', decision });
    }
    const challenge = await challengeFor('user-deny');
    const assertion = authenticator.assert({ challenge: challenge.publicKey.challenge });
    assertion.response.signature = Buffer.from(String(assertion.response.signature), 'base64url')
      .reverse()
      .toString('base64url');
    const res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion,
    });
    expect(res.json.decision).toBe('SIGNATURE_INVALID');
  });

  it('rejects a counter regression and a revoked credential', async () => {
    const { authenticator, credential } = await s.enroll('user-counter');
    let challenge = await challengeFor('user-counter');
    let res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion: authenticator.assert({ challenge: challenge.publicKey.challenge, signCount: 10 }),
    });
    expect(res.json.decision).toBe('PRESENCE_VERIFIED');
    challenge = await challengeFor('user-counter');
    res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion: authenticator.assert({ challenge: challenge.publicKey.challenge, signCount: 9 }),
    });
    expect(res.json.decision).toBe('COUNTER_REGRESSION');
    challenge = await challengeFor('user-counter');
    expect(
      (await s.request('DELETE', `/v1/presence/credentials/${credential.id}`)).json.credential.revokedAt,
    ).not.toBeNull();
    res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion: authenticator.assert({ challenge: challenge.publicKey.challenge, signCount: 11 }),
    });
    expect(res.json.decision).toBe('CREDENTIAL_REVOKED');
  });

  it("denies another subject's credential and an unknown one", async () => {
    const { authenticator } = await s.enroll('user-a');
    await s.enroll('user-b');
    let challenge = await challengeFor('user-b');
    let res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion: authenticator.assert({ challenge: challenge.publicKey.challenge }),
    });
    expect(res.json.decision).toBe('CREDENTIAL_NOT_ALLOWED');
    const { SoftAuthenticator } = await import('./support/soft-authenticator.js');
    const stranger = new SoftAuthenticator('app.example', ORIGIN);
    challenge = await challengeFor();
    res = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.challengeId,
      assertion: stranger.assert({ challenge: challenge.publicKey.challenge }),
    });
    expect(res.json.decision).toBe('CREDENTIAL_NOT_FOUND');
  });

  it('expires challenges', async () => {
    const { authenticator } = await s.enroll('user-late');
    const challenge = await challengeFor('user-late', { ttlSeconds: 10 });
    s.clock.advance(11);
    try {
      expect((await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}`)).json.status).toBe(
        'expired',
      );
      const res = await s.request('POST', '/v1/presence/verify', {
        challengeId: challenge.challengeId,
        assertion: authenticator.assert({ challenge: challenge.publicKey.challenge }),
      });
      expect(res.json.decision).toBe('CHALLENGE_EXPIRED');
    } finally {
      s.clock.advance(-11);
    }
  });

  it('keeps tenants apart', async () => {
    const { authenticator } = await s.enroll('user-t');
    const challenge = await challengeFor('user-t');
    const other = await s.newTenant();
    const res = await s.request(
      'POST',
      '/v1/presence/verify',
      {
        challengeId: challenge.challengeId,
        assertion: authenticator.assert({ challenge: challenge.publicKey.challenge }),
      },
      other.apiKey,
    );
    expect(res.json.decision).toBe('CHALLENGE_NOT_FOUND');
    expect(
      (await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}`, undefined, other.apiKey))
        .status,
    ).toBe(404);
    expect(
      (await s.request('GET', '/v1/presence/credentials?subject=user-t', undefined, other.apiKey)).json.data,
    ).toEqual([]);
    expect((await s.request('GET', `/v1/presence/challenges/${challenge.challengeId}`)).json.status).toBe(
      'pending',
    );
  });

  it('enforces API keys and scopes', async () => {
    expect((await s.request('GET', '/v1/policy', undefined, '')).status).toBe(401);
    expect((await s.request('GET', '/v1/policy', undefined, 'prs_unknown')).json.code).toBe('unauthorized');
    const readOnly = await s.keyWith(['receipts:read']);
    const denied = await s.request(
      'POST',
      '/v1/presence/challenge',
      { actionHashHex: computeActionHash(payout) },
      readOnly,
    );
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(denied.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
