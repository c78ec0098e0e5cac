/**
 * The Store's billing repos, same suite on both dialects: rollups kept with each usage event
 * (by UTC hour, day and month), the month seal, the quota counter's limit under racing
 * challenge creations, gap-free invoice numbers, plan assignments, and the 0004 backfill of rollups
 * from events stored before it.
 */
import { expect, it } from 'vitest';
import { describeEachDialect, useTestStore } from './each-dialect.js';
import { BillingPeriodClosed } from '../domain/billing/ports.js';
import type { StoreTx } from '../domain/ports.js';
import type { UsageEventRecord } from '../domain/usage/ports.js';
import { POSTGRES_MIGRATIONS } from './migrations/postgres/index.js';
import { SQLITE_MIGRATIONS } from './migrations/sqlite/index.js';
import { openDatabase, type StoreOptions } from './open-database.js';
import { createStore } from './open-store.js';
import { seedTenant, TestRecords } from './test-records.js';
import { dropTestSchema } from './testing.js';

const HOUR = 3_600_000;
const MAY = Date.UTC(2030, 4, 1);
const JUNE = Date.UTC(2030, 5, 1);

describeEachDialect(
  (dialect) => `store behaviour: billing (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect, { pgPoolSize: 10 });
    const records = new TestRecords();
    const usage = (
      tenantId: string,
      occurredAt: number,
      quantity = 1,
      meter = 'presence.verified',
    ): UsageEventRecord => ({
      id: records.id('use'),
      tenantId,
      meter,
      quantity,
      occurredAt,
      sourceId: records.id('src'),
    });

    it('adds each usage event to its hour, day and month buckets, in the same transaction', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const events = [
        usage(tenant.id, JUNE - 1, 2),
        usage(tenant.id, JUNE, 3),
        usage(tenant.id, JUNE + HOUR - 1, 4),
      ];
      for (const e of events) await db.store.transaction((tx) => tx.usage.insert(e));
      const rollups = db.store.billing.rollups;
      expect(await rollups.list(tenant.id, 'hour', JUNE - HOUR, JUNE + HOUR)).toEqual([
        { start: JUNE - HOUR, meter: 'presence.verified', quantity: 2 },
        { start: JUNE, meter: 'presence.verified', quantity: 7 },
      ]);
      expect((await rollups.list(tenant.id, 'day', MAY, JUNE + 86_400_000)).map((b) => b.quantity)).toEqual([
        2, 7,
      ]);
      expect(await rollups.list(tenant.id, 'month', MAY, Date.UTC(2030, 6, 1))).toEqual([
        { start: MAY, meter: 'presence.verified', quantity: 2 },
        { start: JUNE, meter: 'presence.verified', quantity: 7 },
      ]);
      const failing = usage(tenant.id, JUNE + 5);
      await expect(
        db.store.transaction(async (tx) => {
          await tx.usage.insert(failing);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect((await rollups.list(tenant.id, 'month', JUNE, JUNE + 1)).map((b) => b.quantity)).toEqual([7]);
    });

    it('seals a month: returns its final quantities (0 for unused meters), then refuses more usage there', async () => {
      const { tenant } = await seedTenant(db.store, records);
      await db.store.transaction((tx) => tx.usage.insert(usage(tenant.id, MAY + 10, 5)));
      const sealed = await db.store.transaction((tx) =>
        tx.billing.rollups.sealMonth(tenant.id, MAY, ['presence.verified', 'presence.denied']),
      );
      expect(sealed).toEqual({ 'presence.verified': 5, 'presence.denied': 0 });
      for (const meter of ['presence.verified', 'presence.denied']) {
        const late = usage(tenant.id, JUNE - 1, 1, meter);
        const error = await db.store.transaction((tx) => tx.usage.insert(late)).catch((e: unknown) => e);
        expect(error, meter).toBeInstanceOf(BillingPeriodClosed);
      }
      await db.store.transaction((tx) => tx.usage.insert(usage(tenant.id, JUNE, 1)));
      const rows = (await db.rows('usage_events')).filter((r) => r.tenant_id === tenant.id);
      expect(rows.map((r) => r.occurred_at).sort()).toEqual([MAY + 10, JUNE]);
    });

    it('never lets racing challenge creations pass the quota limit, and rolls back with its transaction', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const quotas = db.store.billing.quotas;
      /** A challenge creation as the hot path takes it: undefined when the quota was full. */
      const create = (tx: StoreTx, periodStart: number, limit: number | null) =>
        tx.presence.createChallenge({
          challenge: records.challenge(tenant.id, policy.id, { createdAt: periodStart + HOUR }),
          usage: usage(tenant.id, periodStart + HOUR, 1, 'challenges.created'),
          quota: { periodStart, limit },
        });
      const full = new Error('quota full');
      const results = await Promise.all(
        Array.from({ length: 30 }, () =>
          db.store
            .transaction(async (tx) => (await create(tx, MAY, 12)) ?? Promise.reject(full))
            .catch((e: unknown) => (e === full ? undefined : Promise.reject(e))),
        ),
      );
      expect(results.filter((r) => r !== undefined)).toHaveLength(12);
      expect(
        results
          .map((r) => r?.used)
          .filter((u) => u !== undefined)
          .sort((a, b) => a! - b!),
      ).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
      await db.store.transaction(async (tx) => {
        expect(await create(tx, JUNE, null)).toMatchObject({ used: 1 });
        expect(await create(tx, JUNE, 0)).toBeUndefined();
      });
      const aborted = db.store.transaction(async (tx) => {
        expect(await create(tx, JUNE, null)).toMatchObject({ used: 2 });
        throw new Error('abort');
      });
      await expect(aborted).rejects.toThrow('abort');
      expect(await quotas.get(tenant.id, JUNE)).toMatchObject({ used: 1 });
      const announcement = (id: string, createdAt: number) => ({
        id,
        tenantId: tenant.id,
        type: 'usage.quota_threshold',
        payload: { thresholdPercent: 80 },
        createdAt,
      });
      expect(await quotas.announceThreshold(tenant.id, MAY, 80, announcement('evt_first', 1))).toBe(true);
      expect(await quotas.announceThreshold(tenant.id, MAY, 80, announcement('evt_second', 2))).toBe(false);
      expect(await quotas.get(tenant.id, MAY)).toEqual({ used: 12, threshold80At: 1, threshold100At: null });
      // The marker and its event, both or neither: one event for the first call, none for the second.
      const events = (await db.rows('outbox_events')).filter((e) => e.type === 'usage.quota_threshold');
      expect(events.map((e) => [e.id, e.created_at, JSON.parse(e.payload)])).toEqual([
        ['evt_first', 1, { thresholdPercent: 80 }],
      ]);
    });

    it('numbers invoices without gaps: a rolled-back number is taken again', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const take = () => db.store.transaction((tx) => tx.billing.invoices.takeSequence(tenant.id));
      expect(await take()).toBe(1);
      await db.store
        .transaction(async (tx) => {
          await tx.billing.invoices.takeSequence(tenant.id);
          throw new Error('abort');
        })
        .catch(() => undefined);
      expect(await Promise.all([take(), take(), take()])).toEqual(expect.arrayContaining([2, 3, 4]));
    });

    it('resolves the plan in force for a period from its assignments', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const plan = (name: string) => ({
        name,
        currency: 'EUR',
        currencyExponent: 2,
        monthlyChallengeQuota: null,
        meters: {},
      });
      const plans = db.store.billing.plans;
      await plans.put({ tenantId: tenant.id, effectiveFrom: MAY, plan: plan('a'), createdAt: 1 });
      await plans.put({
        tenantId: tenant.id,
        effectiveFrom: Date.UTC(2030, 7, 1),
        plan: plan('b'),
        createdAt: 1,
      });
      await plans.put({ tenantId: tenant.id, effectiveFrom: MAY, plan: plan('a2'), createdAt: 2 });
      expect(await plans.inForce(tenant.id, Date.UTC(2030, 3, 1))).toBeUndefined();
      expect((await plans.inForce(tenant.id, JUNE))?.plan.name).toBe('a2');
      expect((await plans.inForce(tenant.id, Date.UTC(2031, 0, 1)))?.plan.name).toBe('b');
    });

    it('0004 backfills the rollups and quota counters from the usage events stored before it', async () => {
      const options: StoreOptions =
        dialect === 'sqlite'
          ? { sqlitePath: `${db.options.sqlitePath}.backfill` }
          : { ...db.options, pgSchema: `${db.options.pgSchema}_bf` };
      const handle = await openDatabase(options);
      try {
        const all = dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
        for (const m of all.filter((m) => m.id < '0004')) await m.up(handle.db);
        const early = createStore(handle);
        const { tenant } = await seedTenant(early, records);
        const events = [
          usage(tenant.id, MAY + HOUR + 5, 2),
          usage(tenant.id, JUNE - 1, 3),
          usage(tenant.id, JUNE + 7, 4, 'challenges.created'),
        ];
        for (const e of events) {
          const row = {
            id: e.id,
            tenant_id: e.tenantId,
            meter: e.meter,
            quantity: e.quantity,
            occurred_at: e.occurredAt,
            source_id: e.sourceId,
          };
          await handle.db.insertInto('usage_events').values(row).execute();
        }
        for (const m of all.filter((m) => m.id >= '0004')) await m.up(handle.db);
        const month = await early.billing.rollups.list(tenant.id, 'month', MAY, Date.UTC(2030, 6, 1));
        expect(month.map((b) => [b.start, b.meter, b.quantity])).toEqual([
          [MAY, 'presence.verified', 5],
          [JUNE, 'challenges.created', 4],
        ]);
        expect(
          (await early.billing.rollups.list(tenant.id, 'hour', MAY, JUNE)).map((b) => [b.start, b.quantity]),
        ).toEqual([
          [MAY + HOUR, 2],
          [JUNE - HOUR, 3],
        ]);
        expect(await early.billing.quotas.get(tenant.id, JUNE)).toMatchObject({ used: 4 });
      } finally {
        await handle.db.destroy();
        if (dialect === 'postgres') await dropTestSchema(options.pgSchema!);
      }
    });
  },
);
