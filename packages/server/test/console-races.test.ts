/**
 * "Only once" transitions of the console under concurrent requests, on both databases (issue 34
 * §2): an invite is accepted once, a passkey approval executes its change once, two approved
 * rotations of one key yield one successor, and removing owners (or a member's passkeys) at once
 * never leaves a tenant without an owner (or a member without a passkey). A change's cancel racing
 * its apply ends it once (applied and executed, or cancelled and not), and an invite's cancel racing
 * its acceptance leaves a member with a used invite or a cancelled invite and no member.
 */
import { expect, it } from 'vitest';
import type { ConsoleSettings } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { memberSubject } from '../src/domain/console/console-settings.js';
import { listMemberPasskeys } from '../src/domain/console/manage-members.js';
import { ceremony } from './support/approvals.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { RP_ID, useTestService } from './support/test-service.js';

const RACERS = 6;
/** Changes (and invites) whose two endings race, one after the other. */
const ROUNDS = 4;
/** Invites whose acceptance races a cancel started a little later each time (3 ms more per round). */
const INVITE_ROUNDS = 10;

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

  it("a change's cancel racing its apply: applied and executed once, or cancelled and not executed", async () => {
    const tenant = await s.newTenant();
    const [first, second] = [
      await ownerOf(tenant.tenantId, 'Asker'),
      await ownerOf(tenant.tenantId, 'Second'),
    ];
    const quorum = { kind: 'settings.approvers', target: 'approvers', params: { required: 2 } };
    expect((await first.approve(quorum)).status).toBe(200);
    const store = s.composed.deps.store;
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const params = { rpId: RP_ID, rpName: `Raced ${round}`, allowedOrigins: ['https://app.example'] };
      const requested = await first.approve({ kind: 'policy.change', target: 'policy', params });
      expect(requested.status, requested.body).toBe(200);
      const changeId: string = requested.json.pending.changeId;
      const token = new URL(requested.json.pending.approvalUrl as string).pathname.split('/').at(-1)!;
      expect((await ceremony(s, token, 'approve', second.authenticator)).json.state.status).toBe('approved');
      const version = (await store.policies.current(tenant.tenantId))!.version;
      const [applied, cancelled] = await Promise.all([
        second.post(`/console/api/changes/${changeId}/apply`, {}),
        new Promise((r) => setTimeout(r, 2 * round)).then(() =>
          first.post(`/console/api/changes/${changeId}/cancel`, {}),
        ),
      ]);
      const change = (await store.console.changes.get(tenant.tenantId, changeId))!;
      outcomes.push(change.status);
      expect(['applied', 'cancelled']).toContain(change.status);
      const wasApplied = change.status === 'applied';
      expect([applied.status, cancelled.status]).toEqual(wasApplied ? [200, 409] : [409, 200]);
      const policy = (await store.policies.current(tenant.tenantId))!;
      expect(policy.version).toBe(wasApplied ? version + 1 : version);
      expect(policy.rules.rpName === `Raced ${round}`).toBe(wasApplied);
      const audit = await store.auditEvents.list(tenant.tenantId, {}, { limit: 200 });
      const of = (action: string) =>
        audit.filter((e) => e.action === action && e.approvalId === change.approvalId).length;
      expect([of('policy.changed'), of('console_change.cancelled')]).toEqual(wasApplied ? [1, 0] : [0, 1]);
    }
    console.info(`${dialect}: change apply vs cancel, ${outcomes.join(', ')}`);
  });

  it("an invite's cancel racing its acceptance: a member with a used invite, or a cancelled invite and no member", async () => {
    const owner = await member('owner', 'Invite canceller');
    const outcomes: string[] = [];
    for (let round = 0; round < INVITE_ROUNDS; round++) {
      const { invite, inviteUrl } = await createInvite(s.composed.deps, await settings(), {
        tenantId: s.tenantId,
        role: 'developer',
        createdBy: null,
      });
      const token = new URL(inviteUrl).pathname.split('/').at(-1)!;
      const joiner = new ConsoleClient(s.composed.app, await settings());
      const displayName = `Invited ${round}`;
      const options = await joiner.post(`/console/api/invite/${token}/options`, { displayName });
      expect(options.status).toBe(200);
      const credential = joiner.authenticator.register({ challenge: options.json.publicKey.challenge });
      const body = { displayName, registrationId: options.json.registrationId, credential };
      const [joined, cancelled] = await Promise.all([
        joiner.post(`/console/api/invite/${token}`, body),
        new Promise((r) => setTimeout(r, 3 * round)).then(() =>
          owner.form(`/console/members/invites/${invite.id}/cancel`, []),
        ),
      ]);
      const row = (await s.testStore.rows('console_invites')).find((i) => i.id === invite.id)!;
      const joinedMember = (await members()).find((m) => m.id === invite.memberId);
      outcomes.push(joinedMember ? 'joined' : 'cancelled');
      expect(joinedMember !== undefined).toBe(row.used_at !== null);
      if (joinedMember) {
        expect([joined.status, cancelled.status]).toEqual([200, 404]);
      } else {
        expect(cancelled.status).toBe(303);
        expect(joined.status).toBeGreaterThanOrEqual(400);
        expect(joined.status).toBeLessThan(500);
        expect(Number(row.expires_at)).toBeLessThanOrEqual(s.clock.now());
        // A passkey registered before the acceptance lost is revoked: no way in without the invite.
        const passkeys = (await s.testStore.rows('credentials')).filter(
          (c) => c.subject === memberSubject(invite.memberId),
        );
        for (const passkey of passkeys) expect(passkey.revoked_at).not.toBeNull();
      }
    }
    console.info(`${dialect}: invite acceptance vs cancel, ${outcomes.join(', ')}`);
  });
});
