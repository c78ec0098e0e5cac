import type { WebhookBacklog, WebhookBacklogRepo } from '../domain/webhooks/ports.js';
import type { PoolStats } from '../storage/open-database.js';
import type { Metrics } from './create-metrics.js';

export interface BacklogGaugeOptions {
  /** A scrape within this long of the last read reuses it (several instances × scrapers stay cheap). */
  ttlMs?: number;
  /** Counts stop here: a runaway backlog costs a bounded read. */
  cap?: number;
  now?: () => number;
}

/**
 * Webhook backlog gauges, read from the store at scrape time: at most one read per `ttlMs`
 * (concurrent scrapes share it), bounded by `cap`. A failed read (database down) keeps the
 * last values, so a scrape never fails because of the database.
 */
export function registerBacklogGauges(
  metrics: Pick<Metrics, 'addGauge'>,
  backlog: WebhookBacklogRepo,
  { ttlMs = 10_000, cap = 100_000, now = Date.now }: BacklogGaugeOptions = {},
): void {
  let last: { at: number; value: WebhookBacklog } | undefined;
  let reading: Promise<void> | undefined;
  const read = async (): Promise<WebhookBacklog | undefined> => {
    if (last === undefined || now() - last.at >= ttlMs) {
      reading ??= backlog
        .measure(cap)
        .then((value) => void (last = { at: now(), value }))
        .catch(() => undefined)
        .finally(() => (reading = undefined));
      await reading;
    }
    return last?.value;
  };
  metrics.addGauge({
    name: 'presence_outbox_pending_events',
    help: `Outbox events not yet fanned out to webhook deliveries (counted up to ${cap})`,
    collect: async (set) => set((await read())?.outboxPending ?? 0),
  });
  metrics.addGauge({
    name: 'presence_webhook_delivery_backlog',
    help: `Webhook deliveries waiting for a first or next attempt (counted up to ${cap})`,
    collect: async (set) => set((await read())?.deliveriesPending ?? 0),
  });
  metrics.addGauge({
    name: 'presence_outbox_oldest_age_seconds',
    help: 'Age of the oldest event not yet delivered (not fanned out, or a delivery still pending); 0 when none',
    collect: async (set) => {
      const oldest = (await read())?.oldestPendingAt ?? null;
      set(oldest === null ? 0 : Math.max(0, (now() - oldest) / 1000));
    },
  });
}

/** PostgreSQL pool use: connections busy and idle, callers waiting, the configured maximum. */
export function registerPoolGauges(metrics: Pick<Metrics, 'addGauge'>, pool: PoolStats, max: number): void {
  metrics.addGauge({
    name: 'presence_db_pool_connections',
    help: 'PostgreSQL pool connections by state (busy, idle)',
    labelNames: ['state'],
    collect: (set) => {
      set(pool.totalCount - pool.idleCount, { state: 'busy' });
      set(pool.idleCount, { state: 'idle' });
    },
  });
  metrics.addGauge({
    name: 'presence_db_pool_waiting',
    help: 'Queries waiting for a free PostgreSQL pool connection',
    collect: (set) => set(pool.waitingCount),
  });
  metrics.addGauge({
    name: 'presence_db_pool_max_connections',
    help: 'PostgreSQL pool size (PRESENCE_PG_POOL_SIZE)',
    collect: (set) => set(max),
  });
}

/**
 * `presence_receipt_log_integration_lag_seconds`: how far the receipt-log integration is behind
 * (seconds since the oldest receipt no checkpoint covers yet was issued; 0 when caught up). Read
 * at scrape time, at most once per `ttlMs`; a failed read keeps the last value.
 */
export function registerReceiptLogLagGauge(
  metrics: Pick<Metrics, 'addGauge'>,
  readLagSeconds: () => Promise<number>,
  { ttlMs = 10_000, now = Date.now }: Pick<BacklogGaugeOptions, 'ttlMs' | 'now'> = {},
): void {
  let last: { at: number; value: number } | undefined;
  metrics.addGauge({
    name: 'presence_receipt_log_integration_lag_seconds',
    help: 'Seconds since the oldest receipt not yet in a signed receipt-log checkpoint was issued; 0 when caught up',
    collect: async (set) => {
      if (last === undefined || now() - last.at >= ttlMs) {
        const value = await readLagSeconds().catch(() => undefined);
        if (value !== undefined) last = { at: now(), value };
      }
      set(last?.value ?? 0);
    },
  });
}
