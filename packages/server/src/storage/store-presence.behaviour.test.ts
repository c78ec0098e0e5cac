/**
 * The Store's behaviour, part 2: credentials, challenges, receipts, and tenant isolation.
 * Same suite for both dialects; see store.behaviour.test.ts.
 */
import { expect, it } from 'vitest';
import { describeEachDialect, useTestStore } from './each-dialect.js';
import type { DeniedSettlement } from '../domain/presence/ports.js';
import type { Store } from '../domain/ports.js';
import { seedTenant, T0, TestRecords } from './test-records.js';

const AT = T0 + 2000;

describeEachDialect(
  (dialect) => `store behaviour: presence (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect);
    const records = new TestRecords();

    /** A denial as the verify path writes it (a challenge is settled only there). */
    const denial = (tenantId: string, challengeId: string) =>
      records.denied({ tenantId, id: challengeId }, AT);
    const settleDenied = (s: DeniedSettlement) =>
      db.store.selfContainedWrites((tx) => tx.presence.settleDenied(s));

    async function enrol(store: Store, tenantId: string, policyId: string, subject = 'user-1') {
      const reg = records.registration(tenantId, policyId, { subject });
      await store.registrations.insert(reg);
      const credential = records.credential(tenantId, reg);
      await store.credentials.insert(credential);
      return credential;
    }

    it('credentials: round trip by id and by WebAuthn credential id, tenant-scoped', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const c = await enrol(db.store, tenant.id, policy.id);
      expect(await db.store.credentials.get(tenant.id, c.id)).toEqual(c);
      expect(await db.store.credentials.getByCredentialId(tenant.id, c.credentialId)).toEqual(c);
      expect(await db.store.credentials.get(other.tenant.id, c.id)).toBeUndefined();
      expect(await db.store.credentials.getByCredentialId(other.tenant.id, c.credentialId)).toBeUndefined();
    });

    it('credentials: the same WebAuthn credential id may exist once per tenant', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const c = await enrol(db.store, tenant.id, policy.id);
      const reg = records.registration(other.tenant.id, other.policy.id);
      await db.store.registrations.insert(reg);
      const twin = records.credential(other.tenant.id, reg, { credentialId: c.credentialId });
      await db.store.credentials.insert(twin);
      expect(await db.store.credentials.getByCredentialId(other.tenant.id, c.credentialId)).toEqual(twin);
      const again = records.credential(tenant.id, reg, {
        credentialId: c.credentialId,
        registrationId: c.registrationId,
      });
      await expect(db.store.credentials.insert(again)).rejects.toMatchObject({
        name: 'UniqueViolation',
        constraint: 'credentials_tenant_id_credential_id_key',
      });
    });

    it('credentials.list: subject filter, revoked hidden unless asked, keyset pages', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const [a1, b1, a2, a3] = [
        await enrol(db.store, tenant.id, policy.id, 'alice'),
        await enrol(db.store, tenant.id, policy.id, 'bob'),
        await enrol(db.store, tenant.id, policy.id, 'alice'),
        await enrol(db.store, tenant.id, policy.id, 'alice'),
      ];
      await db.store.credentials.revoke(tenant.id, a2!.id, T0 + 1);
      const list = (filter: { subject?: string; includeRevoked: boolean }, afterId?: string) =>
        db.store.credentials
          .list(tenant.id, filter, { limit: 10, afterId })
          .then((cs) => cs.map((c) => c.id));
      expect(await list({ includeRevoked: false })).toEqual([a1!.id, b1!.id, a3!.id]);
      expect(await list({ includeRevoked: true })).toEqual([a1!.id, b1!.id, a2!.id, a3!.id]);
      expect(await list({ subject: 'alice', includeRevoked: true })).toEqual([a1!.id, a2!.id, a3!.id]);
      expect(await list({ subject: 'alice', includeRevoked: false }, a1!.id)).toEqual([a3!.id]);
      const page = await db.store.credentials.list(tenant.id, { includeRevoked: true }, { limit: 2 });
      expect(page.map((c) => c.id)).toEqual([a1!.id, b1!.id]);
    });

    it('credentials.revoke: a compare-and-set that returns the row once, keeps the first time, tenant-scoped', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const c = await enrol(db.store, tenant.id, policy.id);
      expect(await db.store.credentials.revoke(other.tenant.id, c.id, T0 + 1)).toBeUndefined();
      expect(await db.store.credentials.revoke(tenant.id, c.id, T0 + 5)).toEqual({ ...c, revokedAt: T0 + 5 });
      expect(await db.store.credentials.revoke(tenant.id, c.id, T0 + 9)).toBeUndefined();
      expect(await db.store.credentials.get(tenant.id, c.id)).toEqual({ ...c, revokedAt: T0 + 5 });
      expect(await db.store.credentials.revoke(tenant.id, 'cred_missing', T0)).toBeUndefined();
    });

    it('challenges: round trip (nullable fields too), tenant-scoped get', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const full = records.challenge(tenant.id, policy.id);
      const bare = records.challenge(tenant.id, policy.id, {
        subject: null,
        purpose: null,
        allowCredentialIds: [],
      });
      await db.store.challenges.insert(full);
      await db.store.challenges.insert(bare);
      expect(await db.store.challenges.get(tenant.id, full.id)).toEqual(full);
      expect(await db.store.challenges.get(tenant.id, bare.id)).toEqual(bare);
      expect(await db.store.challenges.get(other.tenant.id, full.id)).toBeUndefined();
    });

    it('a settlement: only a pending challenge of that tenant, exactly once', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const c = records.challenge(tenant.id, policy.id);
      await db.store.challenges.insert(c);
      expect(await settleDenied(denial(other.tenant.id, c.id))).toBe('already-decided');
      const first = denial(tenant.id, c.id);
      expect(await settleDenied(first)).toBe('settled');
      expect(await settleDenied(denial(tenant.id, c.id))).toBe('already-decided');
      expect(await db.store.challenges.get(tenant.id, c.id)).toEqual({ ...c, ...first.settlement });
      const written = (await db.rows('usage_events')).filter((r) => r.source_id === c.id);
      expect(written.map((r) => r.id)).toEqual([first.usage.id]);
    });

    it('challenges.deleteExpired: only that tenant and action, expired in the window, without a receipt', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const action = 'ab'.repeat(32);
      const expired = (o: Parameters<TestRecords['challenge']>[2] = {}) =>
        records.challenge(tenant.id, policy.id, { actionHashHex: action, expiresAt: T0 + 1000, ...o });
      const gone = [
        expired(),
        expired({ status: 'denied', decision: 'SIGNATURE_INVALID', usedAt: T0 + 500 }),
      ];
      const kept = [
        expired({ expiresAt: T0 + 5000 }), // still live at T0 + 2000
        expired({ expiresAt: T0 - 20 * 60_000 }), // before the window: retention's
        records.challenge(tenant.id, policy.id, { expiresAt: T0 + 1000 }), // another action
        records.challenge(other.tenant.id, other.policy.id, { actionHashHex: action, expiresAt: T0 + 1000 }),
      ];
      const answered = expired();
      for (const c of [...gone, ...kept, answered]) await db.store.challenges.insert(c);
      await db.store.receipts.insert(records.receipt(answered));
      const window = { since: T0 - 15 * 60_000, now: T0 + 2000 };
      expect(await db.store.challenges.deleteExpired(tenant.id, action, window, 1)).toBe(1);
      expect(await db.store.challenges.deleteExpired(tenant.id, action, window, 10)).toBe(1);
      expect(await db.store.challenges.deleteExpired(tenant.id, action, window, 10)).toBe(0);
      for (const c of gone) expect(await db.store.challenges.get(c.tenantId, c.id)).toBeUndefined();
      for (const c of [...kept, answered]) expect(await db.store.challenges.get(c.tenantId, c.id)).toEqual(c);
    });

    it('receipts: round trip with exact canonical bytes, by id and by challenge, tenant-scoped', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const c = records.challenge(tenant.id, policy.id);
      await db.store.challenges.insert(c);
      const r = records.receipt(c, { canonicalJson: '{"b":[1,2.5,"\\u0000é😀"],"a":{}}' });
      const seq = await db.store.receipts.insert(r);
      // Read back with its place in the tenant's receipt log.
      expect(await db.store.receipts.get(tenant.id, r.id)).toEqual({ ...r, seq });
      expect(await db.store.receipts.getByChallenge(tenant.id, c.id)).toEqual({ ...r, seq });
      expect(await db.store.receipts.get(other.tenant.id, r.id)).toBeUndefined();
      expect(await db.store.receipts.getByChallenge(other.tenant.id, c.id)).toBeUndefined();
      const second = db.store.receipts.insert(records.receipt(c));
      await expect(second).rejects.toMatchObject({ constraint: 'receipts_tenant_id_challenge_id_key' });
    });

    it('tenant isolation: tenant B reads none of tenant A rows through any tenant-scoped method', async () => {
      const a = await seedTenant(db.store, records);
      const b = await seedTenant(db.store, records);
      const key = records.apiKey(a.tenant.id);
      await db.store.apiKeys.insert(key);
      const cred = await enrol(db.store, a.tenant.id, a.policy.id);
      const chl = records.challenge(a.tenant.id, a.policy.id);
      await db.store.challenges.insert(chl);
      await db.store.receipts.insert(records.receipt(chl));
      const s = db.store;
      const seen = [
        await s.apiKeys.list(b.tenant.id, { limit: 100 }),
        await s.credentials.list(b.tenant.id, { includeRevoked: true }, { limit: 100 }),
        await s.credentials.list(
          b.tenant.id,
          { subject: cred.subject, includeRevoked: true },
          { limit: 100 },
        ),
      ];
      expect(seen).toEqual([[], [], []]);
      expect(await s.policies.current(b.tenant.id)).toEqual(b.policy);
      expect(await s.apiKeys.update(b.tenant.id, key.id, { revokedAt: 1 })).toBeUndefined();
      expect(await settleDenied(denial(b.tenant.id, chl.id))).toBe('already-decided');
      expect(await s.registrations.consume(b.tenant.id, cred.registrationId, 1)).toBe(false);
      expect((await s.challenges.get(a.tenant.id, chl.id))?.status).toBe('pending');
      expect((await s.apiKeys.get(a.tenant.id, key.id))?.revokedAt).toBeNull();
    });
  },
);
