/**
 * Idempotency-Key on the routes that create something, on both databases: a retry replays the
 * first response and writes nothing more, another body under the same key is refused, racing
 * duplicates make one row, and the response (which can hold a secret) is stored sealed.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { deleteExpiredIdempotencyKeys } from '../src/domain/idempotency/delete-expired-idempotency-keys.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

let counter = 0;
const action = () => ({ hash: computeActionHash({ type: 'payout', n: ++counter }) });

describeEachDialect('Idempotency-Key', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] }, async (started) => {
    await started.composed.deps.webhooks.close();
    await started.close();
  });

  async function send(url: string, body: unknown, key?: string, apiKey = s.apiKey, method = 'POST' as const) {
    const res = await s.composed.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${apiKey}`,
        ...(key === undefined ? {} : { 'idempotency-key': key }),
      },
      payload: body as object,
    });
    return {
      status: res.statusCode,
      json: res.json(),
      body: res.body,
      replayed: res.headers['idempotent-replayed'],
    };
  }
  const count = async (table: 'challenges' | 'api_keys' | 'idempotency_keys' | 'receipts' | 'policies') =>
    (await s.testStore.rows(table)).length;

  it('replays a retried challenge create: same body, one challenge, one usage event', async () => {
    const body = { actionHashHex: action().hash };
    const before = await count('challenges');
    const first = await send('/v1/presence/challenge', body, 'retry-1');
    const second = await send('/v1/presence/challenge', { ...body }, 'retry-1');
    expect(first.status).toBe(201);
    expect(first.replayed).toBeUndefined();
    expect(second).toMatchObject({ status: 201, replayed: 'true', body: first.body });
    expect(await count('challenges')).toBe(before + 1);
    const usage = (await s.testStore.rows('usage_events')).filter(
      (u) => u.source_id === first.json.challengeId,
    );
    expect(usage).toHaveLength(1);
  });

  it('refuses the same key with a different body (409) and writes nothing', async () => {
    await send('/v1/presence/challenge', { actionHashHex: action().hash }, 'conflict-1');
    const before = await count('challenges');
    const other = await send('/v1/presence/challenge', { actionHashHex: action().hash }, 'conflict-1');
    expect(other.status).toBe(409);
    expect(other.json).toMatchObject({ code: 'idempotency_conflict' });
    expect(other.json.detail).toContain('POST /v1/presence/challenge');
    expect(await count('challenges')).toBe(before);
  });

  it('makes one API key of 20 concurrent identical creates, answers all 20 alike, and seals the secret', async () => {
    const before = await count('api_keys');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        send('/v1/keys', { name: 'race', scopes: ['receipts:read'] }, 'race-key'),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.body)).size).toBe(1);
    expect(results.filter((r) => r.replayed === undefined)).toHaveLength(1);
    expect(await count('api_keys')).toBe(before + 1);
    const secret = results[0]!.json.secret as string;
    const stored = (await s.testStore.rows('idempotency_keys')).find((r) => r.idempotency_key === 'race-key');
    expect(stored).toMatchObject({ status_code: 201, tenant_id: s.tenantId, route: '/v1/keys' });
    expect(stored!.response_sealed).not.toContain(secret);
    expect(stored!.response_sealed).not.toContain(results[0]!.json.key.keyId);
  });

  it('makes one webhook endpoint of 10 concurrent creates, all shown the same secret once stored sealed', async () => {
    const body = { url: 'http://127.0.0.1:9/hook', events: ['receipt.created'] };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => send('/v1/webhooks/endpoints', body, 'hook-1')),
    );
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(new Set(results.map((r) => r.json.secret)).size).toBe(1);
    const endpoints = (await s.testStore.rows('webhook_endpoints')).filter((e) => e.tenant_id === s.tenantId);
    expect(endpoints).toHaveLength(1);
    const stored = (await s.testStore.rows('idempotency_keys')).find((r) => r.idempotency_key === 'hook-1');
    expect(stored!.response_sealed).not.toContain(results[0]!.json.secret);
  });

  it('rotates a webhook secret once for a retried rotate', async () => {
    const created = await send('/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/rot',
      events: ['receipt.created'],
    });
    const url = `/v1/webhooks/endpoints/${created.json.endpoint.id}/rotate-secret`;
    const first = await send(url, { overlapSeconds: 60 }, 'hook-rot');
    const retry = await send(url, { overlapSeconds: 60 }, 'hook-rot');
    expect(first.status).toBe(200);
    expect(retry).toMatchObject({ status: 200, replayed: 'true', body: first.body });
    const fresh = await send(url, { overlapSeconds: 60 }, 'hook-rot-2');
    expect(fresh.json.secret).not.toBe(first.json.secret);
  });

  it('makes one challenge of 20 concurrent identical creates', async () => {
    const body = { actionHashHex: action().hash };
    const before = await count('challenges');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => send('/v1/presence/challenge', body, 'race-chl')),
    );
    expect(new Set(results.map((r) => `${r.status} ${r.body}`)).size).toBe(1);
    expect(await count('challenges')).toBe(before + 1);
  });

  it('replays the original decision to a retried verify, even under 10 concurrent retries', async () => {
    const { authenticator } = await s.enroll('idem-verify');
    const challenge = await send('/v1/presence/challenge', {
      actionHashHex: action().hash,
      subject: 'idem-verify',
    });
    const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
    const body = { challengeId: challenge.json.challengeId, assertion };
    const results = await Promise.all(
      Array.from({ length: 10 }, () => send('/v1/presence/verify', body, 'verify-1')),
    );
    expect(results.map((r) => r.json.decision)).toEqual(Array(10).fill('PRESENCE_VERIFIED'));
    expect(new Set(results.map((r) => r.json.receiptId)).size).toBe(1);
    const unkeyed = await send('/v1/presence/verify', body);
    expect(unkeyed.json.decision).toBe('CHALLENGE_ALREADY_USED');
    const receipts = (await s.testStore.rows('receipts')).filter((r) => r.challenge_id === body.challengeId);
    expect(receipts).toHaveLength(1);
  });

  it('replays a refusal too, while a new key sees the changed state', async () => {
    const body = { actionHashHex: action().hash, subject: 'idem-later' };
    const refused = await send('/v1/presence/challenge', body, 'refusal-1');
    expect(refused.status).toBe(422);
    await s.enroll('idem-later');
    const retried = await send('/v1/presence/challenge', body, 'refusal-1');
    expect(retried).toMatchObject({ status: 422, replayed: 'true', body: refused.body });
    expect((await send('/v1/presence/challenge', body, 'refusal-2')).status).toBe(201);
  });

  it('scopes keys to the tenant and binds them to the API key that used them first', async () => {
    const body = { actionHashHex: action().hash };
    const mine = await send('/v1/presence/challenge', body, 'shared-key');
    const other = await s.newTenant();
    const theirs = await send('/v1/presence/challenge', body, 'shared-key', other.apiKey);
    expect(theirs.status).toBe(201);
    expect(theirs.json.challengeId).not.toBe(mine.json.challengeId);
    const colleague = await s.keyWith(['challenges:write']);
    const refused = await send('/v1/presence/challenge', body, 'shared-key', colleague);
    expect(refused).toMatchObject({ status: 409, json: { code: 'idempotency_conflict' } });
  });

  it('rejects a malformed key with a 400 naming the header, and stores nothing', async () => {
    const before = await count('idempotency_keys');
    for (const key of ['has space', 'x'.repeat(256), 'tab\tkey', 'é']) {
      const res = await send('/v1/presence/challenge', { actionHashHex: action().hash }, key);
      expect(res.status, key).toBe(400);
      expect(res.json.errors?.[0]?.field ?? res.json.detail).toMatch(/idempotency-key/i);
    }
    expect(await count('idempotency_keys')).toBe(before);
  });

  it('without the header, two identical creates are two challenges', async () => {
    const body = { actionHashHex: action().hash };
    const before = await count('challenges');
    await send('/v1/presence/challenge', body);
    await send('/v1/presence/challenge', body);
    expect(await count('challenges')).toBe(before + 2);
  });

  it('keeps rotate, policy and enrollment idempotent as well', async () => {
    const created = await send('/v1/keys', { name: 'to-rotate', scopes: ['receipts:read'] });
    const rotateUrl = `/v1/keys/${created.json.key.keyId}/rotate`;
    const rotations = [await send(rotateUrl, {}, 'rot-1'), await send(rotateUrl, {}, 'rot-1')];
    expect(rotations[1]!.body).toBe(rotations[0]!.body);
    const policy = (await s.request('GET', '/v1/policy')).json.rules;
    const put = { rpId: policy.rpId, allowedOrigins: policy.allowedOrigins };
    const policiesBefore = await count('policies');
    const versions = [
      await send('/v1/policy', put, 'pol-1', s.apiKey, 'PUT' as never),
      await send('/v1/policy', put, 'pol-1', s.apiKey, 'PUT' as never),
    ];
    expect(versions[1]).toMatchObject({ status: 200, replayed: 'true', body: versions[0]!.body });
    expect(await count('policies')).toBe(policiesBefore + 1);
    const options = [
      await send('/v1/presence/credentials/options', { subject: 'idem-enroll' }, 'opt-1'),
      await send('/v1/presence/credentials/options', { subject: 'idem-enroll' }, 'opt-1'),
    ];
    expect(options[1]!.json.registrationId).toBe(options[0]!.json.registrationId);
  });

  it('forgets keys after 24 hours: the cleanup job deletes them and the key can be used again', async () => {
    await send('/v1/presence/challenge', { actionHashHex: action().hash }, 'expiring');
    s.clock.advance(24 * 3600 + 60);
    try {
      while (await deleteExpiredIdempotencyKeys(s.composed.deps, 2)) {
        /* next batch */
      }
      const left = (await s.testStore.rows('idempotency_keys')).filter(
        (r) => r.idempotency_key === 'expiring',
      );
      expect(left).toEqual([]);
      const reused = await send('/v1/presence/challenge', { actionHashHex: action().hash }, 'expiring');
      expect(reused).toMatchObject({ status: 201, replayed: undefined });
    } finally {
      s.clock.advance(-(24 * 3600 + 60));
    }
  });
});
