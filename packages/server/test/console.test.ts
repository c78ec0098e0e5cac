/**
 * The tenant console over HTTP, on both dialects: invite → passkey enrollment → session,
 * discoverable sign-in, presence-gated dangerous changes, and the security rules (CSRF, tenant
 * isolation, the read-only auditor, session timeouts, single-use invites, malformed forms).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleSettings } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { ConsoleClient } from './support/console-client.js';
import { FLAG, SoftAuthenticator } from './support/soft-authenticator.js';
import { startTestService, type TestService } from './support/test-service.js';

const postgresReady = await pgAvailable();

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(`console (${dialect})`, () => {
    let service: TestService;
    let settings: ConsoleSettings;
    let owner: ConsoleClient;

    const invite = async (role: ConsoleRole, tenantId = service.tenantId) =>
      (await createInvite(service.composed.deps, settings, { tenantId, role, createdBy: null })).inviteUrl;
    const member = async (role: ConsoleRole, tenantId = service.tenantId) => {
      const client = new ConsoleClient(service.composed.app, settings);
      const joined = await client.join(await invite(role, tenantId), `A ${role}`);
      expect(joined.status, joined.body).toBe(200);
      return client;
    };
    const keyCount = async () => (await service.testStore.rows('api_keys')).length;

    beforeAll(async () => {
      service = await startTestService(dialect);
      settings = await service.composed.consoleSettings();
      owner = await member('owner');
    });
    afterAll(async () => service?.close());

    it('an invite enrolls a passkey and opens a session; the overview shows the tenant', async () => {
      const page = await owner.get('/console');
      expect(page.status).toBe(200);
      expect(page.body).toContain('<h1>Overview</h1>');
      expect(page.body).toContain('Decisions in the last 30 days');
      expect(owner.cookie).toMatch(/^presence-console=[A-Za-z0-9_-]{43}$/);
      const audit = await owner.get('/console/audit');
      expect(audit.body).toContain('member.joined');
    });

    it('sets an HttpOnly SameSite cookie, and a strict CSP on every page', async () => {
      const client = new ConsoleClient(service.composed.app, settings);
      const url = await invite('developer');
      const token = new URL(url).pathname.split('/').at(-1)!;
      const options = await client.post(`/console/api/invite/${token}/options`, { displayName: 'Dev' });
      const credential = client.authenticator.register({ challenge: options.json.publicKey.challenge });
      const joined = await client.post(`/console/api/invite/${token}`, {
        displayName: 'Dev',
        registrationId: options.json.registrationId,
        credential,
      });
      expect(String(joined.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict; Max-Age=\d+$/);
      const page = await client.get('/console/keys');
      expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    });

    it('a used invite is refused, and changes nothing', async () => {
      const url = await invite('admin');
      const first = new ConsoleClient(service.composed.app, settings);
      expect((await first.join(url, 'First')).status).toBe(200);
      const second = new ConsoleClient(service.composed.app, settings);
      const again = await second.join(url, 'Second');
      expect(again.status).toBe(409);
      expect(again.json.detail).toContain('already used');
      const page = await second.get(new URL(url).pathname);
      expect(page.status).toBe(409);
      expect(page.body).toContain('already used');
      const names = (await service.composed.deps.store.console.members.list(service.tenantId)).map(
        (m) => m.displayName,
      );
      expect(names).not.toContain('Second');
    });

    it('signs in with a discoverable passkey (no user name)', async () => {
      const again = new ConsoleClient(service.composed.app, settings, owner.authenticator);
      expect((await again.get('/console')).status).toBe(303);
      const result = await again.signIn();
      expect(result.status, result.body).toBe(200);
      expect((await again.get('/console/keys')).status).toBe(200);
    });

    it('a member adds a second passkey, signs in with it, and an owner can remove one', async () => {
      const dev = await member('developer');
      const second = new SoftAuthenticator('localhost', settings.origin);
      const devId = /data-add-passkey="(mem_[0-9A-Z]+)"/.exec((await dev.get('/console/members')).body)![1]!;
      const added = await dev.addPasskey(second, devId);
      expect(added.status, added.body).toBe(200);
      const elsewhere = new ConsoleClient(service.composed.app, settings, second);
      expect((await elsewhere.signIn()).status).toBe(200);
      const removed = await owner.form(
        `/console/members/${String(added.json.credential.subject).slice('console:'.length)}/passkeys/${added.json.credential.id}/remove`,
        [],
      );
      expect(removed.status).toBe(303);
      const refused = await new ConsoleClient(service.composed.app, settings, second).signIn();
      expect(refused.status).toBe(403);
      expect(refused.json.detail).toContain('CREDENTIAL_REVOKED');
    });

    it('names the address to open when the console is reached under another host name', async () => {
      const res = await service.composed.app.inject({
        method: 'GET',
        url: '/console/sign-in',
        headers: { host: '127.0.0.1:8080' },
      });
      expect(res.body).toContain('id="wrong-address"');
      expect(res.body).toContain(`href="${settings.origin}/console"`);
    });

    it('creates an API key shown once, and refuses a post without the CSRF token', async () => {
      const before = await keyCount();
      const refused = await owner.form(
        '/console/keys',
        [
          ['name', 'no token'],
          ['scopes', 'receipts:read'],
        ],
        null,
      );
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('CSRF');
      const wrong = await owner.form(
        '/console/keys',
        [
          ['name', 'bad'],
          ['scopes', 'receipts:read'],
        ],
        'x'.repeat(43),
      );
      expect(wrong.status).toBe(403);
      const crossSite = await owner.post(
        '/console/api/approvals/options',
        { kind: 'api-key.revoke', target: 'key_x', params: {} },
        { 'sec-fetch-site': 'cross-site' },
      );
      expect(crossSite.status).toBe(403);
      expect(await keyCount()).toBe(before);
      const created = await owner.form('/console/keys', [
        ['name', 'ci'],
        ['scopes', 'receipts:read'],
        ['scopes', 'challenges:write'],
      ]);
      expect(created.status).toBe(200);
      const secret = /<code id="secret-value" class="secret">(presence_[^<]+)<\/code>/.exec(
        created.body,
      )?.[1];
      expect(secret).toBeDefined();
      const listed = await service.request('GET', '/v1/keys', undefined, secret);
      expect(listed.status).toBe(403);
      expect((await service.request('GET', '/v1/presence/receipts', undefined, secret)).status).toBe(200);
      expect((await owner.get('/console/keys')).body).not.toContain(secret!);
    });

    it('malformed form posts get a problem page and change nothing', async () => {
      const before = await keyCount();
      for (const fields of [
        [
          ['name', 'x'],
          ['scopes', 'no:such-scope'],
        ],
        [['scopes', 'receipts:read']],
        [
          ['name', 'x'],
          ['scopes', 'receipts:read'],
          ['extra', '1'],
        ],
      ] as [string, string][][]) {
        const res = await owner.form('/console/keys', fields);
        expect(res.status).toBe(400);
        expect(res.headers['content-type']).toContain('text/html');
        expect(res.body).toContain('data-code="invalid_request"');
      }
      const hook = await owner.post('/console/api/approvals/options', {
        kind: 'webhook.create',
        target: 'new',
        params: { url: 'http://127.0.0.1:1/x', events: ['receipt.created'] },
      });
      expect(hook.status).toBe(400);
      expect(await keyCount()).toBe(before);
      expect(await service.testStore.rows('webhook_endpoints')).toHaveLength(0);
    });

    it('a dangerous change runs only on PRESENCE_VERIFIED, with its receipt in the audit log', async () => {
      const created = await service.composed.app.inject({
        method: 'POST',
        url: '/v1/keys',
        headers: { authorization: `Bearer ${service.apiKey}` },
        payload: { name: 'to revoke', scopes: ['receipts:read'] },
      });
      const keyId = created.json().key.keyId as string;
      const change = { kind: 'api-key.revoke', target: keyId, params: {} };
      const denied = await owner.approve(change, FLAG.UP);
      expect(denied.status).toBe(403);
      expect(denied.json.detail).toContain('USER_NOT_VERIFIED');
      expect((await service.request('GET', `/v1/keys/${keyId}`)).json.revokedAt).toBeNull();
      const approved = await owner.approve(change);
      expect(approved.status, approved.body).toBe(200);
      expect(approved.json.receiptId).toMatch(/^rct_/);
      expect((await service.request('GET', `/v1/keys/${keyId}`)).json.revokedAt).not.toBeNull();
      const audit = await service.composed.deps.store.console.audit.list(service.tenantId, 10);
      expect(audit.find((a) => a.action === 'api-key.revoke')).toMatchObject({
        target: keyId,
        receiptId: approved.json.receiptId,
      });
    });

    it('a policy change is validated by the API schema first, then approved with the passkey', async () => {
      const current = (await service.request('GET', '/v1/policy')).json;
      const body = {
        rpId: current.rules.rpId,
        allowedOrigins: current.rules.allowedOrigins,
        challengeTtlSeconds: 5,
      };
      const invalid = await owner.post('/console/api/approvals/options', {
        kind: 'policy.change',
        target: 'policy',
        params: body,
      });
      expect(invalid.status).toBe(400);
      expect(invalid.json.errors[0].field).toBe('/params/challengeTtlSeconds');
      const changed = await owner.approve({
        kind: 'policy.change',
        target: 'policy',
        params: { ...body, challengeTtlSeconds: 90 },
      });
      expect(changed.status, changed.body).toBe(200);
      const after = (await service.request('GET', '/v1/policy')).json;
      expect(after.version).toBe(current.version + 1);
      expect(after.rules.challengeTtlSeconds).toBe(90);
      const page = await owner.get('/console/policy');
      expect(page.body).toContain('challengeTtlSeconds');
      expect(page.body).toMatch(/<del>120<\/del> → <ins>90<\/ins>/);
    });

    it('an approval made for one change cannot execute another', async () => {
      const { json } = await service.request('POST', '/v1/keys', { name: 'a', scopes: ['receipts:read'] });
      const other = await service.request('POST', '/v1/keys', { name: 'b', scopes: ['receipts:read'] });
      const options = await owner.post('/console/api/approvals/options', {
        kind: 'api-key.revoke',
        target: json.key.keyId,
        params: {},
      });
      const assertion = owner.authenticator.assert({ challenge: options.json.publicKey.challenge });
      const swapped = await owner.post('/console/api/approvals', {
        change: { kind: 'api-key.revoke', target: other.json.key.keyId, params: {} },
        challengeId: options.json.challengeId,
        assertion,
      });
      expect(swapped.status).toBe(403);
      expect((await service.request('GET', `/v1/keys/${other.json.key.keyId}`)).json.revokedAt).toBeNull();
    });

    it("another tenant's ids are refused", async () => {
      const other = await service.newTenant();
      const foreignKey = (await service.request('GET', '/v1/keys', undefined, other.apiKey)).json.data[0]
        .keyId;
      const refused = await owner.approve({ kind: 'api-key.revoke', target: foreignKey, params: {} });
      expect(refused.status).toBe(404);
      expect(
        (await service.request('GET', `/v1/keys/${foreignKey}`, undefined, other.apiKey)).json.revokedAt,
      ).toBeNull();
      const outsider = await member('owner', other.tenantId);
      expect((await outsider.get('/console/keys')).body).not.toContain('to revoke');
      expect((await outsider.get('/console/receipts/rct_00000000000000000000000000')).status).toBe(404);
    });

    it('the auditor reads everything and changes nothing', async () => {
      const auditor = await member('auditor');
      for (const page of [
        '/console',
        '/console/keys',
        '/console/webhooks',
        '/console/policy',
        '/console/members',
        '/console/audit',
        '/console/usage',
      ]) {
        expect((await auditor.get(page)).status, page).toBe(200);
      }
      const before = await keyCount();
      const create = await auditor.form('/console/keys', [
        ['name', 'x'],
        ['scopes', 'receipts:read'],
      ]);
      expect(create.status).toBe(403);
      const invited = await auditor.approve({
        kind: 'member.invite',
        target: 'new',
        params: { role: 'owner' },
      });
      expect(invited.status).toBe(403);
      const { json } = await service.request('POST', '/v1/keys', { name: 'kept', scopes: ['receipts:read'] });
      const revoke = await auditor.approve({ kind: 'api-key.revoke', target: json.key.keyId, params: {} });
      expect(revoke.status).toBe(403);
      expect(await keyCount()).toBe(before + 1);
      expect((await auditor.get('/console/keys')).body).not.toContain('Create API key');
    });

    it('sessions end when idle, at their absolute end, and everywhere on request', async () => {
      const client = await member('developer');
      service.clock.advance(settings.sessionIdleMs / 1000 + 1);
      expect((await client.get('/console')).status).toBe(303);
      service.clock.offsetMs = 0;
      const fresh = await member('developer');
      for (let t = 0; t < settings.sessionAbsoluteMs; t += settings.sessionIdleMs / 2) {
        service.clock.advance(settings.sessionIdleMs / 2000);
        await fresh.get('/console/audit');
      }
      expect((await fresh.get('/console')).status).toBe(303);
      service.clock.offsetMs = 0;
      const a = await member('developer');
      const b = new ConsoleClient(service.composed.app, settings, a.authenticator);
      await b.signIn();
      expect((await b.get('/console')).status).toBe(200);
      const out = await a.form('/console/sign-out', [['everywhere', '1']]);
      expect(out.status).toBe(303);
      expect((await b.get('/console')).status).toBe(303);
    });
  });
}
