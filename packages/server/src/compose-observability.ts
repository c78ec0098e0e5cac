import type { Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Config } from './config/load-config.js';
import type { Deps } from './domain/deps.js';
import { receiptLogIntegrationLagSeconds } from './domain/receipt-log/receipt-log-lag.js';
import type { HttpRateLimits } from './http/plugins/rate-limit.js';
import { createMetrics, type Metrics } from './observability/create-metrics.js';
import {
  registerBacklogGauges,
  registerPoolGauges,
  registerReceiptLogLagGauge,
} from './observability/register-store-gauges.js';
import { startTracing, type Tracing } from './observability/start-tracing.js';
import { createRateLimiters } from './rate-limit/create-rate-limiters.js';
import type { StoreOptions } from './storage/open-database.js';

/** Metrics, traces and the shared rate limits of one process, wired from the configuration. */
export interface Observability {
  metrics: Metrics;
  /** Set when OTEL_EXPORTER_OTLP_ENDPOINT is. */
  tracer: Tracer | undefined;
  rateLimits: HttpRateLimits;
  /** What the store adds when it opens: SQL spans, the pool gauges and the settle batch sizes. */
  storeOptions: Pick<StoreOptions, 'tracer' | 'onPool' | 'onSettleBatch'>;
  /**
   * The background jobs as they should run: with tracing on, their polls make no spans unless
   * PRESENCE_TRACE_JOBS=true (a webhook attempt still continues its request's trace: it starts
   * from the event's stored traceparent, not from the poll).
   */
  traceJobs<J extends { run(): Promise<boolean> }>(jobs: J[]): J[];
  /** Registers the gauges read from the store at scrape time (webhook backlog, receipt-log lag). */
  watchStore(deps: Pick<Deps, 'store' | 'clock'>): void;
  /** Closes the Redis connection and flushes the last spans. */
  close(): Promise<void>;
}

/**
 * Start before the HTTP app is built: @fastify/otel attaches to Fastify instances created after
 * tracing starts. Waits up to 2 s for Redis so a normal start does not begin degraded.
 */
export async function composeObservability(config: Config, logger: Logger | false): Promise<Observability> {
  const tracing: Tracing | undefined =
    config.otlpEndpoint === undefined
      ? undefined
      : await startTracing({ endpoint: config.otlpEndpoint, serviceName: config.serviceName });
  const metrics = createMetrics();
  const limiters = await createRateLimiters({
    redisUrl: config.redisUrl,
    prefix: config.redisPrefix,
    metrics,
    logger,
  });
  await limiters.ready(2000);
  return {
    metrics,
    tracer: tracing?.tracer,
    rateLimits: {
      perKey: limiters.create('key', config.rateLimits.perKey),
      perTenant: limiters.create('tenant', config.rateLimits.perTenant),
      failedAuthPerAddress: limiters.create('address', config.rateLimits.failedAuthPerAddress),
      signInPerAddress: limiters.create('sign-in', config.rateLimits.signInPerAddress),
      signInTotal: limiters.create('sign-in-total', config.rateLimits.signInTotal),
      linksPerAddress: limiters.create('links', config.rateLimits.linksPerAddress),
    },
    storeOptions: {
      tracer: tracing?.tracer,
      onPool: (pool) => registerPoolGauges(metrics, pool, config.pgPoolSize),
      onSettleBatch: (members) => metrics.pgSettleBatchMembers.observe(members),
    },
    traceJobs: (jobs) =>
      tracing === undefined || config.traceJobs
        ? jobs
        : jobs.map((job) =>
            Object.assign(Object.create(job) as typeof job, { run: () => tracing.untraced(() => job.run()) }),
          ),
    watchStore: (deps) => {
      registerBacklogGauges(metrics, deps.store.webhooks.backlog);
      registerReceiptLogLagGauge(metrics, () => receiptLogIntegrationLagSeconds(deps));
    },
    async close() {
      await limiters.close();
      await tracing?.shutdown();
    },
  };
}
