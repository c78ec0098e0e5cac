/**
 * Every door that writes a policy refuses an rpId or origin no browser would accept (an IP
 * address, a public suffix, an origin outside the rpId that is not a related origin), with a
 * 400 that names the field and says what to set, and stores nothing; a policy already stored
 * before the rule still reads. Operator API, PUT /v1/policy and the console, on both databases;
 * the built CLI on both databases.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createInvite } from '../src/domain/console/create-invite.js';
import { ensureConsoleTenant } from '../src/domain/console/ensure-console-tenant.js';
import { currentPolicy } from '../src/domain/policy/get-policy.js';
import { canonicalJson, sha256Hex } from '../src/domain/encoding.js';
import { newId } from '../src/domain/ids.js';
import { resolvePolicy } from '../src/domain/policy/resolve-policy.js';
import { useBillingService } from './support/billing-service.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { cliStorage, runCli } from './support/server-process.js';

const REFUSED = [
  { rpId: 'com', origins: ['https://com'], field: '/rpId', says: 'public suffix' },
  { rpId: 'co.uk', origins: ['https://shop.co.uk'], field: '/rpId', says: 'public suffix' },
  { rpId: 'github.io', origins: ['https://me.github.io'], field: '/rpId', says: 'public suffix' },
  { rpId: '127.0.0.1', origins: ['http://127.0.0.1:8080'], field: '/rpId', says: 'IP address' },
  {
    rpId: 'evil.com',
    origins: ['http://localhost:8080'],
    field: '/allowedOrigins/0',
    says: 'relatedOrigins',
  },
  { rpId: 'acme.example', origins: ['http://acme.example'], field: '/allowedOrigins/0', says: 'https' },
  {
    rpId: 'acme.example',
    origins: ['https://ACME.example'],
    field: '/allowedOrigins/0',
    says: 'https://acme.example',
  },
];

describeEachDialect('relying party rules', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 1, 3) });
  const count = async (table: 'tenants' | 'challenges') => (await s.testStore.rows(table)).length;

  it('the operator API refuses an unusable rpId or origin, naming the field, creating nothing', async () => {
    for (const c of REFUSED) {
      const before = await count('tenants');
      const body = { name: 'Bad', rpId: c.rpId, allowedOrigins: c.origins };
      const res = await s.admin('POST', '/admin/v1/tenants', body);
      expect(res.status, `${c.rpId} ${res.body}`).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json.code).toBe('invalid_request');
      expect(res.json.errors[0].field).toBe(c.field);
      expect(res.json.detail).toContain(c.says);
      expect(await count('tenants')).toBe(before);
    }
  });

  it('localhost, subdomains and declared related origins are accepted', async () => {
    const local = { name: 'Dev', rpId: 'localhost', allowedOrigins: ['http://localhost:8080'] };
    expect((await s.admin('POST', '/admin/v1/tenants', local)).status).toBe(201);
    const related = {
      name: 'Shop',
      rpId: 'shop.example',
      allowedOrigins: ['https://shop.example', 'https://login.shop.example', 'https://shop-brand.example'],
      relatedOrigins: ['https://shop-brand.example'],
      apiKey: true,
    };
    const created = await s.admin('POST', '/admin/v1/tenants', related);
    expect(created.status, created.body).toBe(201);
    const policy = await s.request('GET', '/v1/policy', undefined, created.json.apiKey);
    expect(policy.json.rules.relatedOrigins).toEqual(['https://shop-brand.example']);
  });

  it('PUT /v1/policy refuses the same, leaving the policy as it was', async () => {
    const { apiKey } = await s.newTenant();
    const before = await s.request('GET', '/v1/policy', undefined, apiKey);
    for (const c of REFUSED) {
      const res = await s.request('PUT', '/v1/policy', { rpId: c.rpId, allowedOrigins: c.origins }, apiKey);
      expect(res.status, `${c.rpId} ${res.body}`).toBe(400);
      expect(res.json.errors[0].field).toBe(c.field);
    }
    const related = await s.request(
      'PUT',
      '/v1/policy',
      {
        rpId: 'app.example',
        allowedOrigins: ['https://app.example'],
        relatedOrigins: ['https://other.example'],
      },
      apiKey,
    );
    expect(related.status).toBe(400);
    expect(related.json.errors[0]).toMatchObject({ field: '/relatedOrigins/0' });
    expect(related.json.detail).toContain('list it in allowedOrigins too');
    expect((await s.request('GET', '/v1/policy', undefined, apiKey)).json).toEqual(before.json);
  });

  it('a policy stored before the rule still reads through the API and the console', async () => {
    const { tenantId, apiKey } = await s.newTenant();
    const rules = resolvePolicy({ rpId: 'com', allowedOrigins: ['http://127.0.0.1:8080'] });
    await s.deps.store.policies.insert({
      id: newId(s.deps, 'pol'),
      tenantId,
      version: 2,
      rules,
      hashHex: sha256Hex(canonicalJson(rules)),
      createdAt: s.clock.now(),
    });
    s.deps.currentPolicies.forget(tenantId);
    const read = await s.request('GET', '/v1/policy', undefined, apiKey);
    expect(read.status, read.body).toBe(200);
    expect(read.json.rules.rpId).toBe('com');
    const settings = await s.composed.consoleSettings();
    const owner = new ConsoleClient(s.composed.app, settings);
    const { inviteUrl } = await createInvite(s.deps, settings, { tenantId, role: 'owner', createdBy: null });
    expect((await owner.join(inviteUrl, 'Owner')).status).toBe(200);
    const page = await owner.get('/console/policy');
    expect(page.status).toBe(200);
    expect(page.body).toContain('127.0.0.1');
  });

  it("the console's policy change is refused before the passkey is asked, naming the field", async () => {
    const { tenantId } = await s.newTenant();
    const settings = await s.composed.consoleSettings();
    const owner = new ConsoleClient(s.composed.app, settings);
    const { inviteUrl } = await createInvite(s.deps, settings, { tenantId, role: 'owner', createdBy: null });
    expect((await owner.join(inviteUrl, 'Owner')).status).toBe(200);
    const challenges = await count('challenges');
    const res = await owner.post('/console/api/approvals/options', {
      kind: 'policy.change',
      target: 'policy',
      params: { rpId: 'app.example', allowedOrigins: ['https://evil.example'] },
    });
    expect(res.status, res.body).toBe(400);
    expect(res.json.errors[0].field).toBe('/allowedOrigins/0');
    expect(res.json.detail).toContain('.well-known/webauthn');
    expect(await count('challenges')).toBe(challenges);
  });

  // Last: it moves the console tenant to another origin.
  it('the console tenant made from configuration is not checked: a start never fails on it', async () => {
    const id = await ensureConsoleTenant(s.deps, 'http://127.0.0.1:9999');
    const rules = (await currentPolicy(s.deps, id)).rules;
    expect([rules.rpId, rules.allowedOrigins]).toEqual(['127.0.0.1', ['http://127.0.0.1:9999']]);
  });
});

describeEachDialect(
  (dialect) => `presence tenant create refuses an unusable rpId (built CLI, ${dialect})`,
  (dialect) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-rp-cli-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      PRESENCE_DEV_TENANT: 'false',
    };
    let storage: { drop(): Promise<void> } | undefined;
    beforeAll(async () => {
      storage = await cliStorage(dialect, dataDir, env);
    });
    afterAll(async () => {
      await storage?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const create = (...args: string[]) => runCli(['tenant', 'create', '--name', 'T', ...args, '--json'], env);

    it('names the problem and what to set, and exits non-zero', () => {
      const ip = create('--rp-id', '127.0.0.1', '--origin', 'http://127.0.0.1:8080');
      expect(ip.code).not.toBe(0);
      expect(ip.err).toContain('/rpId: 127.0.0.1 is an IP address');
      const suffix = create('--rp-id', 'com', '--origin', 'https://com');
      expect(suffix.err).toContain('public suffix');
      const outside = create('--rp-id', 'evil.com', '--origin', 'http://localhost:8080');
      expect(outside.err).toContain('relatedOrigins');
    });

    it('accepts a related origin declared with --related-origin', () => {
      const ok = create(
        '--rp-id',
        'shop.example',
        '--origin',
        'https://shop.example',
        '--origin',
        'https://brand.example',
        '--related-origin',
        'https://brand.example',
      );
      expect(ok.code, ok.err).toBe(0);
      expect(JSON.parse(ok.out).tenantId).toMatch(/^ten_/);
    });
  },
);
