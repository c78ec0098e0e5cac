/**
 * Closing periods: only ended periods, once, in order with gap-free numbers, usage at the
 * boundary in exactly one period, a consistent snapshot against in-flight usage, immutable
 * results, the invoice.finalized event, and the scheduled close after the grace window.
 */
import { expect, it } from 'vitest';
import { closePeriod } from '../src/domain/billing/close-period-for-tenants.js';
import type { Meter } from '@presence/contract';
import { recordUsage } from '../src/domain/usage/record-usage.js';
import { createClosePeriodsJob } from '../src/worker/close-periods-job.js';
import { rawExec, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const JAN = Date.UTC(2032, 0, 1);
const FEB = Date.UTC(2032, 1, 1);
const MAR = Date.UTC(2032, 2, 1);
const APR = Date.UTC(2032, 3, 1);
const plan = {
  name: 'metered',
  currency: 'EUR',
  currencyExponent: 2,
  monthlyChallengeQuota: null,
  meters: { 'webhooks.delivered': { included: 0, tiers: [{ upTo: null, unitPriceMinor: '0.5' }] } },
};

describeEachDialect('closing periods', (dialect) => {
  const s = useBillingService(dialect, { start: JAN + 3_600_000 });
  let source = 0;

  async function tenantAt(ms: number) {
    s.clock.ms = ms;
    return s.newTenant(plan);
  }
  async function use(tenantId: string, at: number, quantity = 1, meter: Meter = 'webhooks.delivered') {
    s.clock.ms = at;
    await s.deps.store.transaction((tx) =>
      recordUsage(s.deps, tx, tenantId, meter, `src_${source++}`, quantity),
    );
  }
  const invoicesOf = async (tenantId: string) =>
    (await s.testStore.rows('invoices'))
      .filter((r) => r.tenant_id === tenantId)
      .sort((a, b) => a.sequence - b.sequence);

  it('refuses the current and future periods and bad labels', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    s.clock.ms = FEB - 1;
    await expect(closePeriod(s.deps, { period: '2032-01', tenantId })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(closePeriod(s.deps, { period: '2032-07' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(closePeriod(s.deps, { period: '2032-13' })).rejects.toMatchObject({
      code: 'invalid_request',
    });
    expect(await invoicesOf(tenantId)).toEqual([]);
  });

  it('puts usage at the boundary in exactly one period: [start, end) by occurredAt', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    await use(tenantId, FEB - 1, 3);
    await use(tenantId, FEB, 5);
    s.clock.ms = MAR + 1;
    const { invoices } = await closePeriod(s.deps, { period: '2032-02', tenantId });
    expect(invoices.map((i) => [i.period, i.number, i.totalMinor])).toEqual([
      ['2032-01', 'INV-000001', 2], // 3 × 0.5 = 1.5 → 2 (half-up)
      ['2032-02', 'INV-000002', 3], // 5 × 0.5 = 2.5 → 3
    ]);
    const [jan, feb] = await invoicesOf(tenantId);
    expect(JSON.parse(jan!.lines).find((l: any) => l.meter === 'webhooks.delivered')).toMatchObject({
      quantity: 3,
      amountMinorExact: '1.5',
      amountMinor: 2,
    });
    expect(JSON.parse(feb!.lines).find((l: any) => l.meter === 'webhooks.delivered').quantity).toBe(5);
  });

  it('closes once: again changes nothing, and closing later catches up in order with gap-free numbers', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    s.clock.ms = FEB + 10;
    const first = await closePeriod(s.deps, { period: '2032-01', tenantId });
    const events = (await s.testStore.rows('outbox_events')).filter(
      (e) => e.type === 'invoice.finalized',
    ).length;
    const again = await closePeriod(s.deps, { period: '2032-01', tenantId });
    expect(again.invoices).toEqual([{ ...first.invoices[0], created: false }]);
    expect(
      (await s.testStore.rows('outbox_events')).filter((e) => e.type === 'invoice.finalized'),
    ).toHaveLength(events);
    s.clock.ms = APR + 10;
    const later = await closePeriod(s.deps, { period: '2032-03', tenantId });
    expect(later.invoices.map((i) => [i.period, i.number, i.created])).toEqual([
      ['2032-02', 'INV-000002', true],
      ['2032-03', 'INV-000003', true],
    ]);
    expect((await invoicesOf(tenantId)).map((r) => r.sequence)).toEqual([1, 2, 3]);
    const event = (await s.testStore.rows('outbox_events')).find(
      (e) =>
        e.type === 'invoice.finalized' && JSON.parse(e.payload).invoiceId === later.invoices[1]!.invoiceId,
    );
    expect(JSON.parse(event!.payload)).toMatchObject({
      number: 'INV-000003',
      status: 'open',
      period: '2032-03',
      tenantId,
    });
  });

  it('refuses usage in a closed month: the in-flight transaction fails and changes nothing', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    s.clock.ms = FEB + 1;
    await closePeriod(s.deps, { period: '2032-01', tenantId });
    await expect(use(tenantId, FEB - 5)).rejects.toMatchObject({ code: 'conflict' });
    expect((await s.testStore.rows('usage_events')).filter((r) => r.tenant_id === tenantId)).toEqual([]);
    await use(tenantId, FEB + 5);
    const usage = await s.deps.store.billing.rollups.list(tenantId, 'month', JAN, MAR);
    expect(usage.filter((b) => b.quantity > 0).map((b) => [b.start, b.quantity])).toEqual([[FEB, 1]]);
  });

  it('reads a consistent snapshot: it waits for usage in flight and bills it', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    s.clock.ms = FEB - 1;
    let recorded!: () => void;
    const usageRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const inFlight = s.deps.store.transaction(async (tx) => {
      await recordUsage(s.deps, tx, tenantId, 'webhooks.delivered', `src_${source++}`, 4);
      recorded();
      await held;
    });
    await usageRecorded;
    s.clock.ms = FEB + 1;
    let finished = false;
    const closing = closePeriod(s.deps, { period: '2032-01', tenantId }).finally(() => (finished = true));
    await new Promise((r) => setTimeout(r, 150));
    expect(finished).toBe(false);
    release();
    await inFlight;
    const { invoices } = await closing;
    expect(invoices[0]).toMatchObject({ created: true, totalMinor: 2 });
  });

  it('concurrent closes finalize one invoice and take one number', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    await use(tenantId, JAN + 5000, 7);
    s.clock.ms = MAR + 1;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => closePeriod(s.deps, { period: '2032-02', tenantId })),
    );
    const created = results.flatMap((r) => r.invoices.filter((i) => i.created));
    expect(created.map((i) => i.period).sort()).toEqual(['2032-01', '2032-02']);
    expect((await invoicesOf(tenantId)).map((r) => [r.sequence, r.total_minor])).toEqual([
      [1, 4],
      [2, 0],
    ]);
  });

  it('keeps finalized invoices immutable and undeletable in the database itself', async () => {
    const { tenantId } = await tenantAt(JAN + 1000);
    s.clock.ms = FEB + 1;
    const { invoices } = await closePeriod(s.deps, { period: '2032-01', tenantId });
    const id = invoices[0]!.invoiceId;
    const exec = (statement: string) => rawExec(s.testStore, statement);
    await expect(exec(`UPDATE invoices SET total_minor = 1 WHERE id = '${id}'`)).rejects.toThrow(/immutable/);
    await expect(exec(`UPDATE invoices SET lines = '[]' WHERE id = '${id}'`)).rejects.toThrow(/immutable/);
    await expect(exec(`DELETE FROM invoices WHERE id = '${id}'`)).rejects.toThrow(/never deleted/);
    await exec(`UPDATE invoices SET status = 'paid', paid_at = 1 WHERE id = '${id}'`);
    expect((await invoicesOf(tenantId))[0]).toMatchObject({ status: 'paid', total_minor: 0 });
  });

  it('the scheduled job closes a period only after the grace window, for every tenant', async () => {
    const a = await tenantAt(JAN + 1000);
    const b = await tenantAt(JAN + 2000);
    const job = createClosePeriodsJob(s.deps);
    s.clock.ms = FEB + s.deps.billing.closeGraceMs - 1;
    await job.run();
    expect([...(await invoicesOf(a.tenantId)), ...(await invoicesOf(b.tenantId))]).toEqual([]);
    s.clock.ms = FEB + s.deps.billing.closeGraceMs;
    while (await job.run());
    for (const t of [a, b])
      expect((await invoicesOf(t.tenantId)).map((r) => r.number)).toEqual(['INV-000001']);
  });
});
