/**
 * The Store's behaviour, one suite for both dialects (part 1: tenants, API keys, policies,
 * registrations, signing keys, outbox, usage). Parts 2 and 3 are store-presence.behaviour.test.ts
 * and store-integrity.behaviour.test.ts.
 */
import { expect, it } from 'vitest';
import { describeEachDialect, useTestStore } from './each-dialect.js';
import { UniqueViolation } from '../domain/ports.js';
import { seedTenant, T0, TestRecords } from './test-records.js';

describeEachDialect(
  (dialect) => `store behaviour (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect);
    const records = new TestRecords();

    it('reports its dialect and answers ping', async () => {
      expect(db.store.dialect).toBe(dialect);
      await expect(db.store.ping()).resolves.toBeUndefined();
    });

    it('tenants: insert, get, list in id order, missing is undefined', async () => {
      const a = records.tenant({ name: 'A' });
      const b = records.tenant({ name: 'B' });
      await db.store.tenants.insert(b);
      await db.store.tenants.insert(a);
      expect(await db.store.tenants.get(a.id)).toEqual(a);
      expect(await db.store.tenants.get('ten_missing')).toBeUndefined();
      const listed = (await db.store.tenants.list()).filter((t) => t.id === a.id || t.id === b.id);
      expect(listed).toEqual([a, b]);
    });

    it('apiKeys: round trip, findByHash across tenants, get scoped to its tenant', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const key = records.apiKey(tenant.id, { expiresAt: T0 + 10, lastUsedAt: T0 + 1 });
      await db.store.apiKeys.insert(key);
      expect(await db.store.apiKeys.findByHash(key.keyHash)).toEqual(key);
      expect(await db.store.apiKeys.findByHash('00'.repeat(32))).toBeUndefined();
      expect(await db.store.apiKeys.get(tenant.id, key.id)).toEqual(key);
      expect(await db.store.apiKeys.get(other.tenant.id, key.id)).toBeUndefined();
    });

    it('apiKeys.list: keyset pages in id order, exclusive afterId, only the tenant', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const keys = [1, 2, 3, 4, 5].map(() => records.apiKey(tenant.id));
      for (const k of [...keys].reverse()) await db.store.apiKeys.insert(k);
      await db.store.apiKeys.insert(records.apiKey(other.tenant.id));
      const first = await db.store.apiKeys.list(tenant.id, { limit: 2 });
      const second = await db.store.apiKeys.list(tenant.id, { limit: 2, afterId: first[1]!.id });
      const last = await db.store.apiKeys.list(tenant.id, { limit: 2, afterId: keys[3]!.id });
      expect(first.map((k) => k.id)).toEqual([keys[0]!.id, keys[1]!.id]);
      expect(second.map((k) => k.id)).toEqual([keys[2]!.id, keys[3]!.id]);
      expect(last).toEqual([keys[4]]);
      expect(await db.store.apiKeys.list(tenant.id, { limit: 2, afterId: keys[4]!.id })).toEqual([]);
    });

    it('apiKeys.update: revokedAt set once, expiresAt only moves earlier, other tenant untouched', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const key = records.apiKey(tenant.id);
      await db.store.apiKeys.insert(key);
      expect(await db.store.apiKeys.update(other.tenant.id, key.id, { revokedAt: 1 })).toBeUndefined();
      expect(await db.store.apiKeys.update(tenant.id, 'key_missing', { revokedAt: 1 })).toBeUndefined();
      expect(await db.store.apiKeys.update(tenant.id, key.id, {})).toEqual(key);
      const expiring = await db.store.apiKeys.update(tenant.id, key.id, { expiresAt: T0 + 500 });
      expect(expiring).toEqual({ ...key, expiresAt: T0 + 500 });
      const later = await db.store.apiKeys.update(tenant.id, key.id, { expiresAt: T0 + 900 });
      expect(later?.expiresAt).toBe(T0 + 500);
      const revoked = await db.store.apiKeys.update(tenant.id, key.id, {
        revokedAt: T0 + 7,
        expiresAt: T0 + 100,
      });
      expect(revoked).toEqual({ ...key, expiresAt: T0 + 100, revokedAt: T0 + 7 });
      const again = await db.store.apiKeys.update(tenant.id, key.id, { revokedAt: T0 + 99 });
      expect(again?.revokedAt).toBe(T0 + 7);
    });

    it('apiKeys.touch: sets lastUsedAt and never moves it back', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const key = records.apiKey(tenant.id);
      await db.store.apiKeys.insert(key);
      await db.store.apiKeys.touch(key.id, T0 + 50);
      await db.store.apiKeys.touch(key.id, T0 + 20);
      expect((await db.store.apiKeys.get(tenant.id, key.id))?.lastUsedAt).toBe(T0 + 50);
    });

    it('apiKeys.liveByCreator: the working keys a member made, only the tenant, first `limit` and the count', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const by = (o: object) => records.apiKey(tenant.id, { createdByMemberId: 'mem_dana', ...o });
      const live = [by({}), by({ expiresAt: T0 + 100 }), by({})];
      const dead = [by({ revokedAt: T0 }), by({ expiresAt: T0 + 10 })];
      const others = [
        records.apiKey(tenant.id),
        records.apiKey(tenant.id, { createdByMemberId: 'mem_other' }),
        records.apiKey(other.tenant.id, { createdByMemberId: 'mem_dana' }),
      ];
      for (const k of [...live, ...dead, ...others]) await db.store.apiKeys.insert(k);
      expect(await db.store.apiKeys.get(tenant.id, live[0]!.id)).toEqual(live[0]);
      const found = await db.store.apiKeys.liveByCreator(tenant.id, 'mem_dana', T0 + 50, 2);
      expect(found).toEqual({ keys: live.slice(0, 2), total: 3 });
      const later = await db.store.apiKeys.liveByCreator(tenant.id, 'mem_dana', T0 + 100, 10);
      expect(later).toEqual({ keys: [live[0], live[2]], total: 2 });
      expect(await db.store.apiKeys.liveByCreator(tenant.id, 'mem_none', T0, 10)).toEqual({
        keys: [],
        total: 0,
      });
    });

    it('policies: current is the highest version, get is tenant-scoped, rules round-trip', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const v2 = records.policy(tenant.id, {
        version: 2,
        rules: { ...policy.rules, challengeTtlSeconds: 60 },
      });
      await db.store.policies.insert(v2);
      expect(await db.store.policies.current(tenant.id)).toEqual(v2);
      expect(await db.store.policies.get(tenant.id, policy.id)).toEqual(policy);
      expect(await db.store.policies.get(other.tenant.id, policy.id)).toBeUndefined();
      expect(await db.store.policies.current('ten_missing')).toBeUndefined();
    });

    it('registrations: round trip, tenant-scoped get, consume once', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const other = await seedTenant(db.store, records);
      const reg = records.registration(tenant.id, policy.id);
      await db.store.registrations.insert(reg);
      expect(await db.store.registrations.get(tenant.id, reg.id)).toEqual(reg);
      expect(await db.store.registrations.get(other.tenant.id, reg.id)).toBeUndefined();
      expect(await db.store.registrations.consume(other.tenant.id, reg.id, T0 + 5)).toBe(false);
      expect(await db.store.registrations.consume(tenant.id, reg.id, T0 + 5)).toBe(true);
      expect(await db.store.registrations.consume(tenant.id, reg.id, T0 + 6)).toBe(false);
      expect(await db.store.registrations.get(tenant.id, reg.id)).toEqual({ ...reg, usedAt: T0 + 5 });
    });

    it('signingKeys: insert, list in creation order, retire keeps the key listed', async () => {
      const before = await db.store.signingKeys.list();
      const older = records.signingKey({ createdAt: T0 - 10 });
      const newer = records.signingKey({ createdAt: T0, notAfter: T0 + 5 });
      const open = records.signingKey({ createdAt: T0 + 10 });
      for (const k of [newer, open, older]) await db.store.signingKeys.insert(k);
      await db.store.signingKeys.retire(open.kid, T0 + 100);
      await db.store.signingKeys.retire(newer.kid, T0 + 100);
      const after = (await db.store.signingKeys.list()).filter((k) => !before.some((b) => b.kid === k.kid));
      expect(after).toEqual([
        older,
        { ...newer, status: 'retired', notAfter: T0 + 5 },
        { ...open, status: 'retired', notAfter: T0 + 100 },
      ]);
      await expect(db.store.signingKeys.insert(older)).rejects.toThrow(UniqueViolation);
    });

    it('outbox: stores the payload as JSON text', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const event = { id: records.id('evt'), tenantId: tenant.id, type: 'receipt.created', createdAt: T0 };
      await db.store.outbox.insert({ ...event, payload: { receiptId: 'rct_1', n: [1, 2] } });
      await db.store.outbox.insert({ ...event, id: records.id('evt'), payload: undefined });
      const rows = (await db.rows('outbox_events')).filter((r) => r.tenant_id === tenant.id);
      expect(rows.map((r) => JSON.parse(r.payload) as unknown)).toEqual([
        { receiptId: 'rct_1', n: [1, 2] },
        null,
      ]);
      expect(rows[0]).toMatchObject({ id: event.id, type: 'receipt.created', created_at: T0 });
    });

    it('usage: one event per (meter, sourceId)', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const event = {
        tenantId: tenant.id,
        meter: 'challenges.created',
        quantity: 1,
        occurredAt: T0,
        sourceId: 'chl_1',
      };
      await db.store.usage.insert({ ...event, id: records.id('use') });
      await db.store.usage.insert({ ...event, id: records.id('use'), meter: 'presence.verified' });
      const duplicate = db.store.usage.insert({ ...event, id: records.id('use') });
      await expect(duplicate).rejects.toMatchObject({ constraint: 'usage_events_meter_source_id_key' });
      const rows = (await db.rows('usage_events')).filter((r) => r.tenant_id === tenant.id);
      expect(rows.map((r) => [r.meter, r.quantity, r.occurred_at])).toEqual([
        ['challenges.created', 1, T0],
        ['presence.verified', 1, T0],
      ]);
    });
  },
);
