/**
 * The console's day-one controls over HTTP, on both dialects: cancelling an invite, changing a
 * member's role through the passkey gate (never above the changer's role), the audit page's
 * filters and exports (the console door of audit events), console passkeys' user name, and the
 * sign-in refusal of a passkey the console does not know.
 */
import { expect, it } from 'vitest';
import type { ConsoleSettings } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { ConsoleClient } from './support/console-client.js';
import { FLAG, SoftAuthenticator } from './support/soft-authenticator.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

describeEachDialect('console day-one controls', (dialect) => {
  const s = useTestService(dialect);
  let settings: ConsoleSettings | undefined;
  const consoleSettings = async () => (settings ??= await s.composed.consoleSettings());
  const invite = async (role: ConsoleRole) =>
    createInvite(s.composed.deps, await consoleSettings(), { tenantId: s.tenantId, role, createdBy: null });
  const member = async (role: ConsoleRole, name: string) => {
    const client = new ConsoleClient(s.composed.app, await consoleSettings());
    const joined = await client.join((await invite(role)).inviteUrl, name);
    expect(joined.status, joined.body).toBe(200);
    return client;
  };
  const memberId = async (name: string) =>
    (await s.composed.deps.store.console.members.list(s.tenantId)).find((m) => m.displayName === name)!.id;

  it('cancels an open invite: its link stops working, and the audit log says who cancelled it', async () => {
    const owner = await member('owner', 'Olga');
    const { invite: open, inviteUrl } = await invite('developer');
    const page = await owner.get('/console/members');
    expect(page.body).toContain(`/console/members/invites/${open.id}/cancel`);
    const cancelled = await owner.form(`/console/members/invites/${open.id}/cancel`, []);
    expect(cancelled.status).toBe(303);
    const again = await owner.form(`/console/members/invites/${open.id}/cancel`, []);
    expect(again.status).toBe(404);
    const late = new ConsoleClient(s.composed.app, await consoleSettings());
    expect((await late.join(inviteUrl, 'Late')).status).toBeGreaterThanOrEqual(400);
    const events = await s.request('GET', '/v1/audit-events?action=invite.cancelled');
    expect(events.json.data[0]).toMatchObject({
      actor: { type: 'console_member', name: 'Olga' },
      target: { type: 'invite', id: open.id },
    });
  });

  it('a developer cannot cancel invites; another tenant’s invite is not found', async () => {
    const dev = await member('developer', 'Dev');
    const { invite: open } = await invite('auditor');
    expect((await dev.form(`/console/members/invites/${open.id}/cancel`, [])).status).toBe(403);
    const other = await s.newTenant();
    const foreign = await createInvite(s.composed.deps, await consoleSettings(), {
      tenantId: other.tenantId,
      role: 'owner',
      createdBy: null,
    });
    const owner = await member('owner', 'Otto');
    expect((await owner.form(`/console/members/invites/${foreign.invite.id}/cancel`, [])).status).toBe(404);
    expect(
      await s.composed.deps.store.console.invites.findByTokenHash(foreign.invite.tokenHash),
    ).toMatchObject({
      expiresAt: foreign.invite.expiresAt,
    });
  });

  it('changes a role only through the passkey gate, with the receipt in the audit event', async () => {
    const owner = await member('owner', 'Ona');
    await member('developer', 'Dina');
    const target = await memberId('Dina');
    expect((await owner.get('/console/members')).body).toContain('Change Dina’s role');
    const change = { kind: 'member.change-role', target, params: { role: 'admin' } };
    const approved = await owner.approve(change);
    expect(approved.status, approved.body).toBe(200);
    expect(approved.json.message).toContain('Dina is now admin (was developer)');
    const event = (await s.request('GET', '/v1/audit-events?action=member.role_changed')).json.data[0];
    expect(event).toMatchObject({
      actor: { type: 'console_member', name: 'Ona' },
      target: { type: 'member', id: target, name: 'Dina' },
      receiptId: approved.json.receiptId,
    });
    const bad = await owner.approve({ ...change, params: { role: 'root' } });
    expect(bad.status).toBe(400);
    const self = await owner.approve({
      ...change,
      target: await memberId('Ona'),
      params: { role: 'auditor' },
    });
    expect(self.status).toBe(403);
    const admin = await member('admin', 'Adam');
    const byAdmin = await admin.approve({ ...change, params: { role: 'owner' } });
    expect(byAdmin.status).toBe(403);
    expect((await s.composed.deps.store.console.members.get(s.tenantId, target))?.role).toBe('admin');
  });

  it('filters and exports the audit page as CSV and NDJSON, the same events as the API', async () => {
    const owner = await member('owner', 'Ava');
    await s.request('POST', '/v1/keys', { name: '=cmd|calc', scopes: ['receipts:read'] });
    const filtered = await owner.get('/console/audit?actorType=api_key&action=api_key.created');
    expect(filtered.status).toBe(200);
    expect(filtered.body).toContain('=cmd|calc');
    expect(filtered.body).not.toContain('member.joined');
    const csv = await owner.get('/console/audit/export?format=csv&actorType=api_key&action=api_key.created');
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.headers['content-disposition']).toContain('audit-events.csv');
    const lines = csv.body.trimEnd().split('\r\n');
    expect(lines[0]).toBe(
      'auditEventId,at,actorType,actorId,actorName,action,targetType,targetId,targetName,approvalId,receiptId,requestId',
    );
    expect(lines.some((l) => l.includes(`"'=cmd|calc"`))).toBe(true);
    const ndjson = await owner.get('/console/audit/export?format=ndjson');
    const events = ndjson.body
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const api = await s.request('GET', '/v1/audit-events?limit=1000');
    expect(events).toEqual(api.json.data);
    const empty = await owner.get(
      '/console/audit/export?format=csv&from=2026-01-02T00:00&to=2026-01-01T00:00',
    );
    expect(empty.status).toBe(400);
    expect((await owner.get('/console/audit?actorType=robot')).status).toBe(400);
  });

  it('names console passkeys “Presence console — <name>” and refuses an unknown passkey in words', async () => {
    const { inviteUrl } = await invite('developer');
    const token = new URL(inviteUrl).pathname.split('/').at(-1)!;
    const client = new ConsoleClient(s.composed.app, await consoleSettings());
    const options = await client.post(`/console/api/invite/${token}/options`, { displayName: 'Dana' });
    expect(options.json.publicKey.user.name).toBe('Presence console — Dana');
    expect(options.json.publicKey.user.displayName).toBe('Dana');

    // A passkey for the same host that the console never enrolled (the demo's, say).
    const stranger = new ConsoleClient(s.composed.app, await consoleSettings());
    stranger.authenticator.register({ challenge: options.json.publicKey.challenge });
    const refused = await stranger.signIn();
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toContain('not a Presence console passkey');
    expect(refused.json.detail).toContain('Presence console — <your name>');
    expect(refused.json.errors).toEqual([{ field: '/assertion/id', message: 'unknown console passkey' }]);
  });

  it('lists denied attempts (subject, decision, reason, time) of its own tenant only', async () => {
    const owner = await member('auditor', 'Aud');
    const { authenticator } = await s.enroll('payer-7');
    const challenge = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: 'ab'.repeat(32),
      subject: 'payer-7',
      purpose: 'payout',
    });
    const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge, flags: FLAG.UP });
    const verified = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.json.challengeId,
      assertion,
    });
    expect(verified.json.decision).toBe('USER_NOT_VERIFIED');
    const page = await owner.get('/console/denied');
    expect(page.status).toBe(200);
    expect(page.body).toContain(challenge.json.challengeId);
    expect(page.body).toContain('payer-7');
    expect(page.body).toContain('USER_NOT_VERIFIED');
    expect(page.body).toContain('payout');
    const other = await s.newTenant();
    const theirs = await s.request(
      'POST',
      '/v1/presence/challenge',
      { actionHashHex: 'cd'.repeat(32) },
      other.apiKey,
    );
    expect(theirs.status).toBe(201);
    const foreign = authenticator.assert({ challenge: theirs.json.publicKey.challenge });
    const denied = await s.request(
      'POST',
      '/v1/presence/verify',
      { challengeId: theirs.json.challengeId, assertion: foreign },
      other.apiKey,
    );
    expect(denied.json.decision).toBe('CREDENTIAL_NOT_FOUND');
    expect((await owner.get('/console/denied')).body).not.toContain(theirs.json.challengeId);
    expect((await owner.get('/console/denied?before=x')).status).toBe(400);
  });

  it('names passkeys by device: on adding one, and later by the member or an owner only', async () => {
    const dev = await member('developer', 'Devi');
    const devId = await memberId('Devi');
    // Adding a passkey is approved first by one the member already has (docs/security.md).
    const approved = await dev.approve({ kind: 'member.passkey.start', target: devId, params: {} });
    expect(approved.status, approved.body).toBe(200);
    const options = approved.json.registration;
    expect(options.publicKey.user.name).toBe('Presence console — Devi');
    const phone = new SoftAuthenticator('localhost', (await consoleSettings()).origin);
    const credential = phone.register({ challenge: options.publicKey.challenge });
    const added = await dev.post('/console/api/passkeys', {
      registrationId: options.registrationId,
      credential,
      deviceName: 'Chrome on Android',
    });
    expect(added.status, added.body).toBe(200);
    const id = added.json.credential.id as string;
    expect((await dev.get('/console/members')).body).toContain('Chrome on Android');
    const renamed = await dev.form(`/console/members/${devId}/passkeys/${id}/name`, [['name', 'Pixel 9']]);
    expect(renamed.status).toBe(303);
    expect((await dev.get('/console/members')).body).toContain('Pixel 9');
    const other = await member('admin', 'Ali');
    const refused = await other.form(`/console/members/${devId}/passkeys/${id}/name`, [['name', 'Mine']]);
    expect(refused.status).toBe(403);
    const empty = await dev.form(`/console/members/${devId}/passkeys/${id}/name`, [['name', '']]);
    expect(empty.status).toBe(400);
    const owner = await member('owner', 'Oren');
    expect(
      (await owner.form(`/console/members/${devId}/passkeys/${id}/name`, [['name', 'Devi phone']])).status,
    ).toBe(303);
    const events = (await s.request('GET', '/v1/audit-events?action=member_passkey.named')).json.data;
    expect(events.map((e: { actor: { name: string } }) => e.actor.name)).toEqual(['Oren', 'Devi']);
  });
});
