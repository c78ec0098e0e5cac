/**
 * The service's Prometheus metrics (prom-client), in one registry per process made here and
 * passed to whoever records: no module-level default registry. Every metric is documented in
 * docs/metrics.md; names follow Prometheus conventions (base units, `_total` counters).
 */
import { DECISIONS } from '@presence/contract';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** A gauge whose value is read when Prometheus scrapes (a queue length, a lag). */
export interface CollectedGauge {
  name: string;
  help: string;
  labelNames?: readonly string[];
  /** Called on every scrape; `set` once per label set. Must not throw (catch and keep the last value). */
  collect(set: (value: number, labels?: Record<string, string>) => void): void | Promise<void>;
}

export interface Metrics {
  registry: Registry;
  httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  decisions: Counter<'decision'>;
  verifyDuration: Histogram<'result'>;
  webhookDeliveries: Counter<'outcome'>;
  webhookAttemptDuration: Histogram<'outcome'>;
  exportBytes: Counter;
  exports: Counter<'outcome'>;
  rateLimited: Counter<'limit'>;
  rateLimitStoreDegraded: Gauge;
  rateLimitStoreErrors: Counter;
  receiptLogCheckpoints: Counter<'outcome'>;
  pgSettleBatchMembers: Histogram;
  /** Registers a scrape-time gauge (compose adds the ones that read the store or other parts). */
  addGauge(gauge: CollectedGauge): void;
}

const LATENCY_BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Every label value a labelled counter can take, so each series exists at 0 from the start: a
 * dashboard's `rate(presence_rate_limited_total[5m])` shows 0, not "No data", until the first 429.
 */
const COUNTER_SERIES = {
  decisions: { decision: DECISIONS },
  webhookDeliveries: { outcome: ['succeeded', 'retrying', 'failed', 'lease_lost'] },
  exports: { outcome: ['completed', 'aborted', 'failed'] },
  rateLimited: { limit: ['key', 'tenant', 'address'] },
  receiptLogCheckpoints: { outcome: ['signed', 'lost'] },
} as const;

export function createMetrics(): Metrics {
  const metrics = buildMetrics();
  for (const [name, labels] of Object.entries(COUNTER_SERIES)) {
    const counter = metrics[name as keyof typeof COUNTER_SERIES] as Counter<string>;
    for (const [label, values] of Object.entries(labels))
      for (const value of values as readonly string[]) counter.inc({ [label]: value }, 0);
  }
  return metrics;
}

function buildMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });
  const registers = [registry];
  return {
    registry,
    httpRequestDuration: new Histogram({
      name: 'presence_http_request_duration_seconds',
      help: 'HTTP requests by method, route pattern and status code: rate, errors and duration',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    decisions: new Counter({
      name: 'presence_decisions_total',
      help: 'Verify decisions by decision (PRESENCE_VERIFIED or a denial)',
      labelNames: ['decision'],
      registers,
    }),
    verifyDuration: new Histogram({
      name: 'presence_verify_duration_seconds',
      help: 'Time to reach a verify decision (assertion check and settling transaction)',
      labelNames: ['result'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'presence_webhook_deliveries_total',
      help: 'Webhook attempts by outcome: succeeded, retrying, failed (gave up), lease_lost',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptDuration: new Histogram({
      name: 'presence_webhook_attempt_duration_seconds',
      help: 'Duration of one webhook attempt (DNS, connect, request, response head)',
      labelNames: ['outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    exportBytes: new Counter({
      name: 'presence_export_bytes_total',
      help: 'Bytes of export packs written to clients',
      registers,
    }),
    exports: new Counter({
      name: 'presence_exports_total',
      help: 'Export packs by outcome: completed, aborted (client left), failed',
      labelNames: ['outcome'],
      registers,
    }),
    rateLimited: new Counter({
      name: 'presence_rate_limited_total',
      help: 'Requests refused with 429 by limit: key, tenant, address (failed authentication), sign-in (anonymous console sign-in)',
      labelNames: ['limit'],
      registers,
    }),
    rateLimitStoreDegraded: new Gauge({
      name: 'presence_rate_limit_store_degraded',
      help: '1 while Redis is unreachable and limits are held per process; 0 when shared (or no Redis configured)',
      registers,
    }),
    rateLimitStoreErrors: new Counter({
      name: 'presence_rate_limit_store_errors_total',
      help: 'Rate-limit checks that fell back to the per-process limiter because Redis failed',
      registers,
    }),
    receiptLogCheckpoints: new Counter({
      name: 'presence_receipt_log_checkpoints_total',
      help: 'Receipt-log checkpoints this process attempted, by outcome: signed, lost (another process integrated first)',
      labelNames: ['outcome'],
      registers,
    }),
    pgSettleBatchMembers: new Histogram({
      name: 'presence_pg_settle_batch_members',
      help: 'PostgreSQL: verified settles per batch statement of one tenant (1 when the tenant was idle)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    addGauge(gauge) {
      new Gauge({
        name: gauge.name,
        help: gauge.help,
        labelNames: [...(gauge.labelNames ?? [])],
        registers,
        async collect() {
          await gauge.collect((value, labels) => (labels ? this.set(labels, value) : this.set(value)));
        },
      });
    },
  };
}
