import { describe, expect, it } from 'vitest';
import { createMetrics } from './create-metrics.js';
import { registerBacklogGauges } from './register-store-gauges.js';

describe('backlog gauges', () => {
  const setup = () => {
    let t = 1_000_000;
    const reads: number[] = [];
    let fail = false;
    const metrics = createMetrics();
    registerBacklogGauges(
      metrics,
      {
        async measure(cap) {
          reads.push(cap);
          if (fail) throw new Error('database down');
          return { outboxPending: reads.length, deliveriesPending: 7, oldestPendingAt: t - 30_000 };
        },
      },
      { ttlMs: 10_000, cap: 500, now: () => t },
    );
    const gauge = async (name: string) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values[0]?.value;
    return {
      metrics,
      reads,
      gauge,
      advance: (ms: number) => (t += ms),
      failNext: () => (fail = true),
    };
  };

  it('reads the store at most once per interval, shared by every gauge and concurrent scrape', async () => {
    const g = setup();
    await Promise.all([g.metrics.registry.metrics(), g.metrics.registry.metrics()]);
    expect(g.reads).toEqual([500]);
    expect(await g.gauge('presence_outbox_pending_events')).toBe(1);
    expect(await g.gauge('presence_webhook_delivery_backlog')).toBe(7);
    expect(await g.gauge('presence_outbox_oldest_age_seconds')).toBe(30);
    g.advance(9_999);
    await g.metrics.registry.metrics();
    expect(g.reads).toHaveLength(1);
    g.advance(1);
    await g.metrics.registry.metrics();
    expect(g.reads).toHaveLength(2);
  });

  it('keeps the last values when the store fails, and the scrape succeeds', async () => {
    const g = setup();
    await g.metrics.registry.metrics();
    g.failNext();
    g.advance(20_000);
    const text = await g.metrics.registry.metrics();
    expect(text).toContain('presence_outbox_pending_events 1');
    expect(g.reads).toHaveLength(2);
  });
});
