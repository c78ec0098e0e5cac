/**
 * The Store's console repos: members, single-use invites, sessions and the audit log, tenant
 * scoped. Same suite for both dialects; see store.behaviour.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InviteRecord, MemberRecord } from '../domain/console/ports.js';
import { seedTenant, T0, TestRecords } from './test-records.js';
import { DIALECTS, openTestStore, pgAvailable, type TestStore } from './testing.js';

const postgresReady = await pgAvailable();

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !postgresReady)(`store behaviour: console (${dialect})`, () => {
    let db: TestStore;
    const records = new TestRecords();
    beforeAll(async () => {
      db = await openTestStore(dialect);
    });
    afterAll(async () => {
      await db?.cleanup();
    });

    const member = (tenantId: string, role: MemberRecord['role'] = 'owner'): MemberRecord => ({
      id: records.id('mem'),
      tenantId,
      displayName: 'Ada',
      role,
      createdAt: T0,
      removedAt: null,
    });
    const invite = (tenantId: string, expiresAt = T0 + 60_000): InviteRecord => ({
      id: records.id('cin'),
      tenantId,
      tokenHash: records.id('hash'),
      role: 'developer',
      memberId: records.id('mem'),
      createdBy: null,
      createdAt: T0,
      expiresAt,
      usedAt: null,
    });

    it('an invite is consumed once, even by concurrent calls, and never after it expires', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const open = invite(tenant.id);
      await db.store.console.invites.insert(open);
      expect(await db.store.console.invites.findByTokenHash(open.tokenHash)).toEqual(open);
      const results = await Promise.all(
        [1, 2, 3, 4].map(() => db.store.console.invites.consume(open.id, T0 + 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect((await db.store.console.invites.findByTokenHash(open.tokenHash))?.usedAt).toBe(T0 + 1);
      const expired = invite(tenant.id, T0 + 10);
      await db.store.console.invites.insert(expired);
      expect(await db.store.console.invites.consume(expired.id, T0 + 10)).toBe(false);
      expect(await db.store.console.invites.listOpen(tenant.id, T0 + 5)).toEqual([expired]);
    });

    it('members are tenant-scoped; a removed member is no longer listed', async () => {
      const a = await seedTenant(db.store, records);
      const b = await seedTenant(db.store, records);
      const ada = member(a.tenant.id);
      await db.store.console.members.insert(ada);
      expect(await db.store.console.members.get(b.tenant.id, ada.id)).toBeUndefined();
      expect(await db.store.console.members.getAnyTenant(ada.id)).toEqual(ada);
      expect(await db.store.console.members.remove(b.tenant.id, ada.id, T0)).toBe(false);
      expect(await db.store.console.members.remove(a.tenant.id, ada.id, T0 + 1)).toBe(true);
      expect(await db.store.console.members.remove(a.tenant.id, ada.id, T0 + 2)).toBe(false);
      expect(await db.store.console.members.list(a.tenant.id)).toEqual([]);
    });

    it('cancelling an invite and changing a role are tenant-scoped compare-and-sets', async () => {
      const a = await seedTenant(db.store, records);
      const b = await seedTenant(db.store, records);
      const open = invite(a.tenant.id);
      await db.store.console.invites.insert(open);
      expect(await db.store.console.invites.cancel(b.tenant.id, open.id, T0 + 1)).toBe(false);
      const both = await Promise.all(
        [1, 2].map(() => db.store.console.invites.cancel(a.tenant.id, open.id, T0 + 1)),
      );
      expect(both.filter(Boolean)).toHaveLength(1);
      // An acceptance that read the clock before the cancel (an earlier `at`) is refused too.
      expect(await db.store.console.invites.consume(open.id, T0)).toBe(false);
      expect(await db.store.console.invites.consume(open.id, T0 + 2)).toBe(false);
      expect(await db.store.console.invites.listOpen(a.tenant.id, T0 + 2)).toEqual([]);
      const dev = member(a.tenant.id, 'developer');
      await db.store.console.members.insert(dev);
      expect(await db.store.console.members.setRole(b.tenant.id, dev.id, 'developer', 'admin')).toBe(false);
      expect(await db.store.console.members.setRole(a.tenant.id, dev.id, 'auditor', 'admin')).toBe(false);
      expect(await db.store.console.members.setRole(a.tenant.id, dev.id, 'developer', 'admin')).toBe(true);
      expect((await db.store.console.members.get(a.tenant.id, dev.id))?.role).toBe('admin');
    });

    it('passkey names are kept per member of a tenant and renamed in place', async () => {
      const a = await seedTenant(db.store, records);
      const ada = member(a.tenant.id);
      await db.store.console.members.insert(ada);
      const put = (name: string, at: number) =>
        db.store.console.passkeyNames.put({
          credentialRef: 'cred_1',
          tenantId: a.tenant.id,
          memberId: ada.id,
          name,
          at,
        });
      await put('Phone', T0);
      await put('Pixel 9', T0 + 1);
      expect(await db.store.console.passkeyNames.ofMember(a.tenant.id, ada.id)).toEqual(
        new Map([['cred_1', 'Pixel 9']]),
      );
      const b = await seedTenant(db.store, records);
      expect((await db.store.console.passkeyNames.ofMember(b.tenant.id, ada.id)).size).toBe(0);
    });

    it('sessions: touch only moves forward; revoking all of a member ends every one', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const ada = member(tenant.id);
      await db.store.console.members.insert(ada);
      const session = (n: number) => ({
        id: records.id('ses'),
        tenantId: tenant.id,
        memberId: ada.id,
        tokenHash: `${records.id('tok')}-${n}`,
        createdAt: T0,
        lastSeenAt: T0,
        expiresAt: T0 + 3_600_000,
        revokedAt: null,
      });
      const [s1, s2] = [session(1), session(2)];
      await db.store.console.sessions.insert(s1);
      await db.store.console.sessions.insert(s2);
      await db.store.console.sessions.touch(s1.id, T0 + 100);
      await db.store.console.sessions.touch(s1.id, T0 + 50);
      expect((await db.store.console.sessions.findByTokenHash(s1.tokenHash))?.lastSeenAt).toBe(T0 + 100);
      expect(await db.store.console.sessions.revokeAllOfMember(ada.id, T0 + 200)).toBe(2);
      expect((await db.store.console.sessions.findByTokenHash(s2.tokenHash))?.revokedAt).toBe(T0 + 200);
    });

    it('the audit log lists a tenant’s events newest first, filtered and paged', async () => {
      const a = await seedTenant(db.store, records);
      const b = await seedTenant(db.store, records);
      const entry = (tenantId: string, action: string, at: number, actorType: 'api_key' | 'cli') => ({
        id: records.id('aud'),
        tenantId,
        at,
        actor: { type: actorType, id: actorType === 'cli' ? 'cli' : 'key_1', name: 'ops' },
        action,
        target: { type: 'api_key', id: 'key_1', name: 'backend' },
        approvalId: null,
        receiptId: 'rct_1',
        receiptHashHex: 'ab'.repeat(32),
        requestId: 'req-1',
        detail: { graceSeconds: 60 },
      });
      const first = entry(a.tenant.id, 'api_key.rotated', T0, 'api_key');
      const second = entry(a.tenant.id, 'api_key.revoked', T0 + 1000, 'cli');
      for (const e of [first, second, entry(b.tenant.id, 'policy.changed', T0, 'api_key')])
        await db.store.auditEvents.insert(e);
      const list = (filter: object, page = { limit: 10 }) =>
        db.store.auditEvents.list(a.tenant.id, filter, page);
      expect(await list({})).toEqual([second, first]);
      expect(await list({ actorType: 'cli' })).toEqual([second]);
      expect(await list({ action: 'api_key.rotated' })).toEqual([first]);
      expect(await list({ from: T0 + 1, to: T0 + 1001 })).toEqual([second]);
      expect(await list({}, { limit: 1 })).toEqual([second]);
      expect(await db.store.auditEvents.list(a.tenant.id, {}, { limit: 10, beforeId: second.id })).toEqual([
        first,
      ]);
    });
  });
}
