/**
 * API keys through the HTTP API, on both databases: `keys:manage` only grants (and revokes) scopes
 * the calling key holds (so only a full-scope key mints a full-scope key), rotation refuses revoked,
 * expired and already rotated keys with a 409, and keys carry the checksummed `presence_` format while legacy `prs_`
 * keys keep working.
 */
import { SCOPES } from '@presence/contract';
import { expect, it } from 'vitest';
import { hashKeySecret } from '../src/domain/api-keys/api-key-secret.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const KEY_FORMAT = /^presence_[0-9A-Za-z]{49}$/;

describeEachDialect('API keys', (dialect) => {
  const s = useTestService(dialect);
  const keyCount = async () => (await s.testStore.rows('api_keys')).length;
  /** POST /v1/keys as `by`: a key named `name` holding `scopes`. */
  const createKey = (name: string, scopes: string[], by: string) =>
    s.request('POST', '/v1/keys', { name, scopes }, by);

  it('lets a key grant only the scopes it holds itself', async () => {
    const manager = await s.keyWith(['keys:manage', 'receipts:read']);
    const before = await keyCount();
    const wider = await createKey('wider', ['receipts:read', 'presence:verify'], manager);
    expect(wider.status).toBe(403);
    expect(wider.json).toMatchObject({ code: 'forbidden', errors: [{ field: 'body/scopes' }] });
    expect(wider.json.detail).toContain('presence:verify');
    expect(await keyCount()).toBe(before);

    const narrower = await createKey('reader', ['receipts:read'], manager);
    expect(narrower.status).toBe(201);
    expect(narrower.json.key.scopes).toEqual(['receipts:read']);
    const same = await createKey('peer', ['keys:manage', 'receipts:read'], manager);
    expect(same.status).toBe(201);
  });

  it('mints a full-scope key only for a key that holds every scope', async () => {
    const allButOne = await s.keyWith(SCOPES.filter((scope) => scope !== 'billing:read'));
    const refused = await createKey('root', [...SCOPES], allButOne);
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toContain('billing:read');
    const minted = await createKey('root', [...SCOPES], s.apiKey);
    expect(minted.status).toBe(201);
    expect(minted.json.key.scopes).toEqual([...SCOPES]);
  });

  it('rotates a key only for a grantor holding all of its scopes', async () => {
    const manager = await s.keyWith(['keys:manage']);
    const full = await s.request('POST', '/v1/keys', { name: 'full', scopes: [...SCOPES] });
    const before = await keyCount();
    const refused = await s.request('POST', `/v1/keys/${full.json.key.keyId}/rotate`, {}, manager);
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe('forbidden');
    expect(await keyCount()).toBe(before);
    expect((await s.request('GET', `/v1/keys/${full.json.key.keyId}`)).json.expiresAt).toBeNull();
    const own = await s.request('POST', '/v1/keys', { name: 'own', scopes: ['keys:manage'] }, manager);
    expect((await s.request('POST', `/v1/keys/${own.json.key.keyId}/rotate`, {}, manager)).status).toBe(201);
  });

  it('revokes a key only for a grantor holding all of its scopes', async () => {
    const manager = await s.keyWith(['keys:manage']);
    const full = await s.request('POST', '/v1/keys', { name: 'full', scopes: [...SCOPES] });
    const refused = await s.request('DELETE', `/v1/keys/${full.json.key.keyId}`, undefined, manager);
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'forbidden', errors: [{ field: 'params/keyId' }] });
    expect((await s.request('GET', `/v1/keys/${full.json.key.keyId}`)).json.revokedAt).toBeNull();
    expect((await s.request('GET', '/v1/keys', undefined, full.json.secret)).status).toBe(200);
    const own = await s.request('POST', '/v1/keys', { name: 'own', scopes: ['keys:manage'] }, manager);
    const revoked = await s.request('DELETE', `/v1/keys/${own.json.key.keyId}`, undefined, manager);
    expect(revoked.status).toBe(200);
    expect(revoked.json.revokedAt).not.toBeNull();
  });

  it('refuses to rotate a revoked key or one whose grace period has ended, with a 409', async () => {
    const revoked = await s.request('POST', '/v1/keys', { name: 'revoked', scopes: ['receipts:read'] });
    expect((await s.request('DELETE', `/v1/keys/${revoked.json.key.keyId}`)).status).toBe(200);
    const afterRevoke = await s.request('POST', `/v1/keys/${revoked.json.key.keyId}/rotate`, {});
    expect(afterRevoke.status).toBe(409);
    expect(afterRevoke.json).toMatchObject({ code: 'conflict' });
    expect(afterRevoke.json.detail).toContain('revoked');

    const rotated = await s.request('POST', '/v1/keys', { name: 'rotated', scopes: ['receipts:read'] });
    const first = await s.request('POST', `/v1/keys/${rotated.json.key.keyId}/rotate`, {
      gracePeriodSeconds: 60,
    });
    expect(first.status).toBe(201);
    // Within the grace period the old key still works, but a key is rotated once: its successor is.
    const beforeAgain = await keyCount();
    const again = await s.request('POST', `/v1/keys/${rotated.json.key.keyId}/rotate`, {});
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain('already rotated');
    expect(await keyCount()).toBe(beforeAgain);
    expect((await s.request('POST', `/v1/keys/${first.json.key.keyId}/rotate`, {})).status).toBe(201);
    s.clock.advance(61);
    const before = await keyCount();
    const late = await s.request('POST', `/v1/keys/${rotated.json.key.keyId}/rotate`, {});
    expect(late.status).toBe(409);
    expect(late.json.detail).toContain('expired');
    expect(await keyCount()).toBe(before);
    expect((await s.request('POST', '/v1/keys/key_00000000000000000000000000/rotate', {})).status).toBe(404);
  });

  it('issues checksummed presence_ keys, refuses a key with a wrong checksum, and accepts legacy prs_ keys', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'fmt', scopes: ['policy:read'] });
    const secret: string = created.json.secret;
    expect(secret).toMatch(KEY_FORMAT);
    expect(created.json.key.prefix).toBe(secret.slice(0, 16));
    expect((await s.request('GET', '/v1/policy', undefined, secret)).status).toBe(200);
    const last = secret.at(-1) === 'A' ? 'B' : 'A';
    const typo = secret.slice(0, -1) + last;
    const refused = await s.request('GET', '/v1/policy', undefined, typo);
    expect(refused.status).toBe(401);

    const legacy = `prs_${'L'.repeat(43)}`;
    await s.testStore.store.transaction((tx) =>
      tx.apiKeys.insert({
        id: 'key_01HZZZZZZZZZZZZZZZZZZZZZZZ',
        tenantId: s.tenantId,
        name: 'legacy',
        prefix: legacy.slice(0, 12),
        keyHash: hashKeySecret(legacy),
        scopes: ['policy:read'],
        createdAt: s.clock.now(),
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
        createdByMemberId: null,
      }),
    );
    expect((await s.request('GET', '/v1/policy', undefined, legacy)).status).toBe(200);
    const rotated = await s.request('POST', '/v1/keys/key_01HZZZZZZZZZZZZZZZZZZZZZZZ/rotate', {});
    expect(rotated.status).toBe(201);
    expect(rotated.json.secret).toMatch(KEY_FORMAT);
    expect((await s.request('GET', '/v1/policy', undefined, legacy)).status).toBe(200);
  });
});
