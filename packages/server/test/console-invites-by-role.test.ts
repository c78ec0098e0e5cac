/**
 * Console invites on both databases: an invite is a dangerous change (a new member with its own
 * passkey could pass every gate), so it is created only after the inviter's passkey approved it,
 * and no member gives a role that may change more than its own.
 */
import { expect, it } from 'vitest';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { ConsoleClient, joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { FLAG } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

describeEachDialect('console invites by role', (dialect) => {
  const s = useTestService(dialect);
  /** Invites made by members (the test's own setup invites are the operator's). */
  const inviteCount = async () =>
    (await s.testStore.rows('console_invites')).filter((r) => r['created_by'] !== null).length;
  const memberIdOf = async (name: string) =>
    (await s.composed.deps.store.console.members.list(s.tenantId)).find((m) => m.displayName === name)!.id;
  const member = async (role: ConsoleRole, name?: string) => (await joinedMember(s, role, name)).client;
  const inviteChange = (role: ConsoleRole) => ({ kind: 'member.invite', target: 'new', params: { role } });

  it("an owner's invite exists only after the owner's passkey approved it", async () => {
    const owner = await member('owner');
    const before = await inviteCount();
    const denied = await owner.approve(inviteChange('admin'), FLAG.UP);
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toContain('USER_NOT_VERIFIED');
    expect(await inviteCount()).toBe(before);

    const approved = await owner.approve(inviteChange('admin'));
    expect(approved.status, approved.body).toBe(200);
    expect(approved.json.receiptId).toMatch(/^rct_/);
    expect(await inviteCount()).toBe(before + 1);
    const admin = new ConsoleClient(s.composed.app, await s.composed.consoleSettings());
    expect((await admin.join(approved.json.secret, 'Invited admin')).status).toBe(200);
    const joined = await s.composed.deps.store.console.members.get(
      s.tenantId,
      await memberIdOf('Invited admin'),
    );
    expect(joined?.role).toBe('admin');
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 20 });
    expect(audit.find((a) => a.action === 'invite.created')).toMatchObject({
      receiptId: approved.json.receiptId,
    });
    const page = await owner.get('/console/members');
    expect(page.body).toContain('data-approve="member.invite"');
  });

  it('admins, developers and auditors cannot invite, even with their passkey', async () => {
    const before = await inviteCount();
    for (const role of ['admin', 'developer', 'auditor'] as const) {
      const client = await member(role);
      for (const given of ['owner', 'auditor'] as const) {
        const refused = await client.approve(inviteChange(given));
        expect(refused.status, `${role} → ${given}`).toBe(403);
      }
      expect((await client.get('/console/members')).body).not.toContain('Create an invite link');
    }
    expect(await inviteCount()).toBe(before);
  });

  it('an invite made by a member needs the members permission and no role above its own', async () => {
    await member('admin', 'Admin A');
    await member('developer', 'Developer D');
    const settings = await s.composed.consoleSettings();
    const before = await inviteCount();
    for (const [name, role] of [
      ['Admin A', 'owner'],
      ['Developer D', 'admin'],
      ['Developer D', 'developer'],
    ] as const) {
      const createdBy = await memberIdOf(name);
      await expect(
        createInvite(s.composed.deps, settings, { tenantId: s.tenantId, role, createdBy }),
        `${name} → ${role}`,
      ).rejects.toMatchObject({ code: 'forbidden' });
    }
    expect(await inviteCount()).toBe(before);
    await member('owner', 'Owner O');
    const made = await createInvite(s.composed.deps, settings, {
      tenantId: s.tenantId,
      role: 'owner',
      createdBy: await memberIdOf('Owner O'),
    });
    expect(made.invite.role).toBe('owner');
  });
});
