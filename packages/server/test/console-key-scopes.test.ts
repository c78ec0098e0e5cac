/**
 * The console mints no more power than the passkey gate protects, on both databases: a member
 * creates, rotates and revokes only keys whose scopes its role may use (the role table), and a
 * key with a scope that can change policy, keys, credentials, webhooks or approvals exists only
 * after the member's passkey approved exactly that key.
 */
import { expect, it } from 'vitest';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { FLAG } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

const NEW = 'new';

describeEachDialect('console keys by role', (dialect) => {
  const s = useTestService(dialect);
  const keyCount = async () => (await s.testStore.rows('api_keys')).length;
  const member = async (role: ConsoleRole) => (await joinedMember(s, role)).client;
  const secretOf = (body: string) =>
    /<code id="secret-value" class="secret">(presence_[^<]+)<\/code>/.exec(body)?.[1];

  it('a developer cannot mint policy:write or credentials:write, with or without a passkey', async () => {
    const developer = await member('developer');
    const before = await keyCount();
    for (const scope of ['policy:write', 'credentials:write']) {
      const form = await developer.form('/console/keys', [
        ['name', 'escalate'],
        ['scopes', scope],
      ]);
      expect(form.status, scope).toBe(403);
      expect(form.body).toContain(`the developer role may not use ${scope}`);
      const approved = await developer.approve({
        kind: 'api-key.create',
        target: NEW,
        params: { name: 'escalate', scopes: ['receipts:read', scope] },
      });
      expect(approved.status, scope).toBe(403);
      expect(approved.json).toMatchObject({ code: 'forbidden', errors: [{ field: 'body/scopes' }] });
    }
    expect(await keyCount()).toBe(before);
    const page = await developer.get('/console/keys');
    expect(page.body).toMatch(/value="policy:write" disabled/);
    expect(page.body).toContain('(not for the developer role)');

    const plain = await developer.form('/console/keys', [
      ['name', 'reader'],
      ['scopes', 'receipts:read'],
      ['scopes', 'challenges:write'],
    ]);
    expect(plain.status).toBe(200);
    const secret = secretOf(plain.body)!;
    expect((await s.request('GET', '/v1/presence/receipts', undefined, secret)).status).toBe(200);
    expect((await s.request('PUT', '/v1/policy', { allowedOrigins: [] }, secret)).status).toBe(403);
  });

  it('a key with a powerful scope is created only after the passkey approved it', async () => {
    const owner = await member('owner');
    const before = await keyCount();
    const form = await owner.form('/console/keys', [
      ['name', 'policy robot'],
      ['scopes', 'policy:read'],
      ['scopes', 'policy:write'],
    ]);
    expect(form.status).toBe(403);
    expect(form.body).toContain('create it with your passkey');
    const change = {
      kind: 'api-key.create',
      target: NEW,
      params: { name: 'policy robot', scopes: ['policy:read', 'policy:write'] },
    };
    const notVerified = await owner.approve(change, FLAG.UP);
    expect(notVerified.status).toBe(403);
    expect(notVerified.json.detail).toContain('USER_NOT_VERIFIED');
    expect(await keyCount()).toBe(before);

    const approved = await owner.approve(change);
    expect(approved.status, approved.body).toBe(200);
    expect(approved.json.secret).toMatch(/^presence_/);
    expect(approved.json.receiptId).toMatch(/^rct_/);
    expect(await keyCount()).toBe(before + 1);
    const listed = (await s.request('GET', '/v1/keys')).json.data as {
      keyId: string;
      name: string;
      scopes: string[];
    }[];
    expect(listed.find((k) => k.name === 'policy robot')?.scopes).toEqual(['policy:read', 'policy:write']);
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 20 });
    expect(audit.find((a) => a.action === 'api_key.created')).toMatchObject({
      receiptId: approved.json.receiptId,
      target: { id: listed.find((k) => k.name === 'policy robot')?.keyId },
    });
    expect((await owner.get('/console/keys')).body).not.toContain(approved.json.secret);
  });

  it('a developer with its passkey may mint the powerful scopes its role uses (webhooks:manage)', async () => {
    const developer = await member('developer');
    const before = await keyCount();
    const refused = await developer.form('/console/keys', [
      ['name', 'hooks'],
      ['scopes', 'webhooks:manage'],
    ]);
    expect(refused.status).toBe(403);
    const approved = await developer.approve({
      kind: 'api-key.create',
      target: NEW,
      params: { name: 'hooks', scopes: ['webhooks:manage'] },
    });
    expect(approved.status, approved.body).toBe(200);
    expect(await keyCount()).toBe(before + 1);
  });

  it('a developer cannot rotate or revoke a key whose scopes its role may not use', async () => {
    const developer = await member('developer');
    const wide = (await s.request('POST', '/v1/keys', { name: 'wide', scopes: ['policy:write'] })).json;
    const narrow = (await s.request('POST', '/v1/keys', { name: 'narrow', scopes: ['receipts:read'] })).json;
    const before = await keyCount();
    for (const change of [
      { kind: 'api-key.revoke', target: wide.key.keyId, params: {} },
      { kind: 'api-key.rotate', target: wide.key.keyId, params: { graceSeconds: 0 } },
    ]) {
      const refused = await developer.approve(change);
      expect(refused.status, change.kind).toBe(403);
      expect(refused.json.detail).toContain('the developer role may not use policy:write');
    }
    const keys = (await s.request('GET', '/v1/keys')).json.data as { keyId: string; revokedAt: unknown }[];
    expect(keys.find((k) => k.keyId === wide.key.keyId)?.revokedAt).toBeNull();
    expect(await keyCount()).toBe(before);
    const page = await developer.get('/console/keys');
    expect(page.body).not.toContain('Rotate wide');
    expect(page.body).toContain('Rotate narrow');
    const revoked = await developer.approve({ kind: 'api-key.revoke', target: narrow.key.keyId, params: {} });
    expect(revoked.status, revoked.body).toBe(200);
  });

  it('a form without a scope says so in words and creates nothing', async () => {
    const owner = await member('admin');
    const before = await keyCount();
    const res = await owner.form('/console/keys', [['name', 'empty']]);
    expect(res.status).toBe(400);
    expect(res.body).toContain('Choose at least one scope');
    expect(res.body).not.toContain('must have required property');
    const approval = await owner.approve({
      kind: 'api-key.create',
      target: NEW,
      params: { name: 'empty', scopes: [] },
    });
    expect(approval.status).toBe(400);
    expect(approval.json.detail).toBe('Choose at least one scope');
    expect(await keyCount()).toBe(before);
  });
});
