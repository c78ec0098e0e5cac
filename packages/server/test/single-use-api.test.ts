/**
 * "Only once" transitions of the API under concurrent requests, on both databases (issue 34 §2):
 * however many requests race, one rotation of a key succeeds and the others get a 409; a
 * revocation happens once and records one event; webhook secret rotations never overwrite a secret
 * they did not read; one signing-key
 * rotation is scheduled. Each transition is a compare-and-set in the store, in the transaction
 * of its side effects (the successor key, the outbox event, the retired keys).
 */
import { expect, it } from 'vitest';
import { rotateSigningKey } from '../src/domain/receipts/rotate-signing-key.js';
import { signingSecrets } from '../src/domain/webhooks/webhook-secret.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const RACERS = 10;

describeEachDialect('single-use transitions of the API', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] });
  const race = <T>(fn: () => Promise<T>) => Promise.all(Array.from({ length: RACERS }, fn));
  const statuses = (results: { status: number }[]) => results.map((r) => r.status).sort();

  it('rotates a key once under concurrent rotations: one 201 and one successor, the others 409', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'raced', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const results = await race(() => s.request('POST', `/v1/keys/${keyId}/rotate`, {}));
    expect(statuses(results)).toEqual([201, ...Array<number>(RACERS - 1).fill(409)]);
    for (const lost of results.filter((r) => r.status === 409)) {
      expect(lost.json).toMatchObject({ code: 'conflict' });
      expect(lost.json.detail).toContain('already rotated');
    }
    const rows = (await s.testStore.rows('api_keys')).filter((k) => k.name === 'raced');
    expect(rows).toHaveLength(2);
    const winner = results.find((r) => r.status === 201)!;
    expect(rows.find((k) => k.id === keyId)?.rotated_to).toBe(winner.json.key.keyId);
    // The successor is the one live key of the pair that can be rotated again.
    expect((await s.request('POST', `/v1/keys/${keyId}/rotate`, {})).status).toBe(409);
    expect((await s.request('POST', `/v1/keys/${winner.json.key.keyId}/rotate`, {})).status).toBe(201);
  });

  it('revokes a key once under concurrent revocations: the same revocation time for every caller', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'revoked', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const results = await race(() => s.request('DELETE', `/v1/keys/${keyId}`));
    expect(statuses(results)).toEqual(Array<number>(RACERS).fill(200));
    const times = new Set(results.map((r) => r.json.revokedAt));
    expect(times.size).toBe(1);
    expect((await s.request('GET', '/v1/policy', undefined, created.json.secret)).status).toBe(401);
  });

  it('a rotation racing a revocation never leaves a successor of a key revoked first', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'mixed', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const [rotation, revocation] = await Promise.all([
      s.request('POST', `/v1/keys/${keyId}/rotate`, {}),
      s.request('DELETE', `/v1/keys/${keyId}`),
    ]);
    expect(revocation.status).toBe(200);
    const rows = (await s.testStore.rows('api_keys')).filter((k) => k.name === 'mixed');
    expect(rows).toHaveLength(rotation.status === 201 ? 2 : 1);
    if (rotation.status !== 201) expect(rotation.status).toBe(409);
  });

  it('revokes a credential once under concurrent revocations: one credential.revoked event', async () => {
    const { credential } = await s.enroll('racing-subject');
    const results = await race(() => s.request('DELETE', `/v1/presence/credentials/${credential.id}`));
    expect(statuses(results)).toEqual(Array<number>(RACERS).fill(200));
    expect(new Set(results.map((r) => r.json.credential.revokedAt)).size).toBe(1);
    const events = (await s.testStore.rows('outbox_events')).filter(
      (e) => e.type === 'credential.revoked' && String(e.payload).includes(credential.id),
    );
    expect(events).toHaveLength(1);
  });

  it('webhook secret rotations that race are serialized: none overwrites a secret it did not read', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['receipt.created'],
    });
    const id: string = created.json.endpoint.id;
    const results = await race(() =>
      s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, { overlapSeconds: 60 }),
    );
    // Rotations are repeatable, so several may win one after the other; a lost one is a 409.
    const won: string[] = results.filter((r) => r.status === 200).map((r) => r.json.secret);
    expect(won.length).toBeGreaterThan(0);
    for (const lost of results.filter((r) => r.status !== 200)) expect(lost.json.code).toBe('conflict');
    const endpoint = (await s.composed.deps.store.webhooks.endpoints.get(s.tenantId, id))!;
    const [current, previous] = signingSecrets(s.composed.deps, endpoint, s.clock.now());
    expect(won).toContain(current);
    // The secret each winner replaced is the one the winner before it returned (a chain): without
    // the compare-and-set, two rotations both replaced the first secret and one secret vanished.
    if (won.length === 1) expect(previous).toBe(created.json.secret);
    else expect(won.filter((w) => w !== current)).toContain(previous);
  });

  it('a webhook secret rotation that read a secret since replaced writes nothing (the compare-and-set)', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/stale',
      events: ['receipt.created'],
    });
    const id: string = created.json.endpoint.id;
    const endpoints = s.composed.deps.store.webhooks.endpoints;
    const stale = (await endpoints.get(s.tenantId, id))!;
    expect((await s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, {})).status).toBe(200);
    const change = { secretSealed: stale.secretSealed, secretCreatedAt: 1, updatedAt: 1 };
    expect(await endpoints.update(s.tenantId, id, change, stale.secretSealed)).toBeUndefined();
    expect((await endpoints.get(s.tenantId, id))!.secretSealed).not.toBe(stale.secretSealed);
  });

  it('schedules one signing-key rotation when several are asked at once', async () => {
    const deps = s.composed.deps;
    const minimum = 2 * deps.signer.refreshMs + 1000;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        rotateSigningKey(deps, deps.signer.refreshMs, { leadMs: minimum, overlapMs: minimum }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
    }
    const now = deps.clock.now();
    const scheduled = (await deps.store.signingKeys.list()).filter((k) => k.notBefore > now);
    expect(scheduled).toHaveLength(1);
  });
});
