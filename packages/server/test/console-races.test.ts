/**
 * "Only once" transitions of the console under concurrent requests, on both databases (issue 34
 * §2): an invite is accepted once, a passkey approval executes its change once, two approved
 * rotations of one key yield one successor, and removing owners (or a member's passkeys) at once
 * never leaves a tenant without an owner (or a member without a passkey).
 */
import { expect, it } from 'vitest';
import type { ConsoleSettings } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { listMemberPasskeys } from '../src/domain/console/manage-members.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

const RACERS = 6;

describeEachDialect('console single-use transitions', (dialect) => {
  const s = useTestService(dialect);
  const settings = async (): Promise<ConsoleSettings> => s.composed.consoleSettings();
  const inviteUrl = async (role: ConsoleRole) =>
    (await createInvite(s.composed.deps, await settings(), { tenantId: s.tenantId, role, createdBy: null }))
      .inviteUrl;
  const member = async (role: ConsoleRole, name = `A ${role}`) => {
    const client = new ConsoleClient(s.composed.app, await settings());
    expect((await client.join(await inviteUrl(role), name)).status).toBe(200);
    return client;
  };
  const members = async () => s.composed.deps.store.console.members.list(s.tenantId);
  /** A console client of a new owner of `tenantId`, signed in. */
  const ownerOf = async (tenantId: string, name: string) => {
    const url = (
      await createInvite(s.composed.deps, await settings(), { tenantId, role: 'owner', createdBy: null })
    ).inviteUrl;
    const client = new ConsoleClient(s.composed.app, await settings());
    expect((await client.join(url, name)).status).toBe(200);
    return client;
  };

  it('accepts an invite once when several people use its link at the same time', async () => {
    const url = await inviteUrl('developer');
    const token = new URL(url).pathname.split('/').at(-1)!;
    const clients = await Promise.all(
      Array.from({ length: RACERS }, async () => new ConsoleClient(s.composed.app, await settings())),
    );
    const ceremonies = [];
    for (const [i, client] of clients.entries()) {
      const options = await client.post(`/console/api/invite/${token}/options`, {
        displayName: `Racer ${i}`,
      });
      expect(options.status).toBe(200);
      const credential = client.authenticator.register({ challenge: options.json.publicKey.challenge });
      ceremonies.push({
        client,
        body: { displayName: `Racer ${i}`, registrationId: options.json.registrationId, credential },
      });
    }
    const results = await Promise.all(
      ceremonies.map((c) => c.client.post(`/console/api/invite/${token}`, c.body)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
    expect((await members()).filter((m) => m.displayName.startsWith('Racer '))).toHaveLength(1);
  });

  it('executes an approved change once when its assertion is sent several times at once', async () => {
    const owner = await member('owner', 'Approver');
    const key = await s.request('POST', '/v1/keys', { name: 'console-raced', scopes: ['receipts:read'] });
    const change = { kind: 'api-key.rotate', target: key.json.key.keyId, params: { graceSeconds: 60 } };
    const options = await owner.post('/console/api/approvals/options', change);
    const assertion = owner.authenticator.assert({
      challenge: options.json.publicKey.challenge,
      signCount: 0,
    });
    const body = { change, challengeId: options.json.challengeId, assertion };
    const results = await Promise.all(
      Array.from({ length: RACERS }, () => owner.post('/console/api/approvals', body)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of results.filter((r) => r.status !== 200)) expect(r.status).toBeGreaterThanOrEqual(400);
    expect((await s.testStore.rows('api_keys')).filter((k) => k.name === 'console-raced')).toHaveLength(2);
  });

  it('rotates a key once when two approvals of the rotation finish at the same time', async () => {
    const owner = await member('owner', 'Second approver');
    const key = await s.request('POST', '/v1/keys', { name: 'twice-approved', scopes: ['receipts:read'] });
    const change = { kind: 'api-key.rotate', target: key.json.key.keyId, params: { graceSeconds: 60 } };
    const bodies = [];
    for (let i = 0; i < RACERS; i++) {
      const options = await owner.post('/console/api/approvals/options', change);
      expect(options.status).toBe(200);
      const assertion = owner.authenticator.assert({
        challenge: options.json.publicKey.challenge,
        signCount: 0,
      });
      bodies.push({ change, challengeId: options.json.challengeId, assertion });
    }
    const results = await Promise.all(bodies.map((b) => owner.post('/console/api/approvals', b)));
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
    expect((await s.testStore.rows('api_keys')).filter((k) => k.name === 'twice-approved')).toHaveLength(2);
  });

  it("never removes a member's last passkey, even when both of two are removed at the same time", async () => {
    const owner = await member('owner', 'Passkey remover');
    const dev = await member('developer', 'Two passkeys');
    const memberId = (await members()).find((m) => m.displayName === 'Two passkeys')!.id;
    const second = new SoftAuthenticator('localhost', (await settings()).origin);
    const added = await dev.addPasskey(second, memberId);
    expect(added.status, added.body).toBe(200);
    const passkeys = await listMemberPasskeys(s.composed.deps, await settings(), memberId);
    expect(passkeys).toHaveLength(2);
    const results = await Promise.all(
      passkeys.map((p) => owner.form(`/console/members/${memberId}/passkeys/${p.id}/remove`, [])),
    );
    expect(results.map((r) => r.status).sort()).toEqual([303, 409]);
    expect(await listMemberPasskeys(s.composed.deps, await settings(), memberId)).toHaveLength(1);
  });

  it('never removes the last owner, even when two owners are removed at the same time', async () => {
    const tenant = await s.newTenant();
    const invite = (name: string) => ownerOf(tenant.tenantId, name);
    const [first, second] = [await invite('Owner one'), await invite('Owner two')];
    const owners = await s.composed.deps.store.console.members.list(tenant.tenantId);
    const idOf = (name: string) => owners.find((m) => m.displayName === name)!.id;
    // Each owner removes the other, both at once: one removal may win, never both.
    const results = await Promise.all([
      first.approve({ kind: 'member.remove', target: idOf('Owner two'), params: {} }),
      second.approve({ kind: 'member.remove', target: idOf('Owner one'), params: {} }),
    ]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    const left = await s.composed.deps.store.console.members.list(tenant.tenantId);
    expect(left.filter((m) => m.role === 'owner').length).toBeGreaterThanOrEqual(1);
  });

  it('never demotes the last owner, even when two owners demote each other at the same time', async () => {
    const tenant = await s.newTenant();
    const invite = (name: string) => ownerOf(tenant.tenantId, name);
    const [first, second] = [await invite('Owner A'), await invite('Owner B')];
    const owners = await s.composed.deps.store.console.members.list(tenant.tenantId);
    const idOf = (name: string) => owners.find((m) => m.displayName === name)!.id;
    const demote = (target: string) => ({ kind: 'member.change-role', target, params: { role: 'admin' } });
    const results = await Promise.all([
      first.approve(demote(idOf('Owner B'))),
      second.approve(demote(idOf('Owner A'))),
    ]);
    expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    const left = await s.composed.deps.store.console.members.list(tenant.tenantId);
    expect(left.filter((m) => m.role === 'owner')).toHaveLength(1);
  });
});
