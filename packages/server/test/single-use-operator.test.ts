/**
 * "Only once" transitions of the operator API under concurrent requests, on both databases
 * (issue 34 §2): a period is closed once (one invoice, one number, one invoice.finalized event),
 * and an open invoice is settled once: paid or void, never both.
 */
import { expect, it } from 'vitest';
import { useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const RACERS = 6;

describeEachDialect('single-use transitions of the operator API', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 1, 3) });

  it('closes a period once under concurrent closes, and settles its invoice once', async () => {
    const { tenantId } = await s.newTenant();
    s.clock.ms = Date.UTC(2033, 2, 2);
    const closes = await Promise.all(
      Array.from({ length: RACERS }, () =>
        s.admin('POST', '/admin/v1/billing/periods/2033-02/close', { tenantId }),
      ),
    );
    expect(closes.map((r) => r.status)).toEqual(Array<number>(RACERS).fill(200));
    const invoices = (await s.testStore.rows('invoices')).filter((i) => i.tenant_id === tenantId);
    expect(invoices).toHaveLength(1);
    const events = (await s.testStore.rows('outbox_events')).filter(
      (e) => e.tenant_id === tenantId && e.type === 'invoice.finalized',
    );
    expect(events).toHaveLength(1);

    const id = invoices[0]!.id;
    const settles = await Promise.all(
      Array.from({ length: RACERS }, (_, i) =>
        s.admin('POST', `/admin/v1/invoices/${id}/${i % 2 ? 'pay' : 'void'}`, {}),
      ),
    );
    const final = (await s.testStore.rows('invoices')).find((i) => i.id === id)!;
    expect(['paid', 'void']).toContain(final.status);
    const path = final.status === 'paid' ? 'pay' : 'void';
    settles.forEach((r, i) => expect(r.status).toBe((i % 2 ? 'pay' : 'void') === path ? 200 : 409));
  });
});
