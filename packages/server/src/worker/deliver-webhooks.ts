import { ROOT_CONTEXT, SpanKind, context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Deps } from '../domain/deps.js';
import { sendAttempt } from '../domain/webhooks/attempt-delivery.js';
import { claimDeliveries } from '../domain/webhooks/claim-deliveries.js';
import { fanOutEvents } from '../domain/webhooks/fan-out-events.js';
import type { ClaimedDelivery } from '../domain/webhooks/ports.js';
import { createBatchRecorder } from './batch-recorder.js';
import type { Metrics } from '../observability/create-metrics.js';
import { observeAttempt } from './observe-attempt.js';
import type { Job } from './run-jobs.js';

export interface WebhookWorkerOptions {
  logger: Logger | false;
  /** How often to look for new events and due deliveries when idle. */
  pollMs: number;
  /** Attempts in flight in this process. */
  maxInFlight: number;
  /** Attempts in flight per endpoint, across all processes. */
  perEndpoint: number;
  /** A claim's lease: longer than one attempt can take (the transport's total timeout). */
  leaseMs: number;
  /** Attempt counters and durations (presence_webhook_deliveries_total …). */
  metrics?: Pick<Metrics, 'webhookDeliveries' | 'webhookAttemptDuration'> | undefined;
  /** Tracing on → one span per attempt; the outbound POST (and its traceparent) is its child. */
  tracer?: Tracer | undefined;
}

export interface WebhookJob extends Job {
  /** Waits for the attempts in flight to record their outcome (call after the job loop stopped). */
  drain(): Promise<void>;
}

const FAN_OUT_BATCH = 200;

/**
 * The webhook worker, one job: fan new outbox events out to deliveries, lease due deliveries
 * and start their attempts without waiting for them; outcomes are group-committed. While attempts are in flight a batch ends
 * when one of them finishes (or after the poll interval), so a freed slot is refilled at once.
 */
export function createWebhookJob(deps: Deps, options: WebhookWorkerOptions): WebhookJob {
  const inFlight = new Set<Promise<void>>();
  const log = options.logger;
  const record = createBatchRecorder(
    deps,
    (attempt, outcome) => observeAttempt(options.metrics, log, attempt, outcome),
    (error, batch) => {
      // Their leases expire and the deliveries are attempted again: nothing is lost.
      if (log) log.error({ err: error, deliveries: batch.length }, 'recording webhook attempts failed');
    },
  );
  const start = (claimed: ClaimedDelivery, token: string) => {
    const attempt: Promise<void> = traced(options.tracer, claimed, () => sendAttempt(deps, claimed, token))
      .then(record)
      .catch((error: unknown) => {
        if (log) log.error({ err: error, deliveryId: claimed.delivery.id }, 'webhook attempt failed');
      })
      .finally(() => inFlight.delete(attempt));
    inFlight.add(attempt);
  };
  return {
    name: 'webhooks',
    intervalMs: options.pollMs,
    async run() {
      const fanned = await fanOutEvents(deps, FAN_OUT_BATCH);
      const free = options.maxInFlight - inFlight.size;
      const { token, claimed } = await claimDeliveries(deps, {
        limit: free,
        perEndpoint: options.perEndpoint,
        leaseMs: options.leaseMs,
      });
      for (const c of claimed) start(c, token);
      if (inFlight.size === 0) return fanned === FAN_OUT_BATCH;
      await firstOf([...inFlight], options.pollMs);
      return true;
    },
    async drain() {
      await Promise.allSettled([...inFlight]);
    },
  };
}

/**
 * Runs one attempt inside its own span when tracing is on (as is otherwise). The span continues
 * the trace of the request that recorded the event, when that request was traced.
 */
function traced<T>(tracer: Tracer | undefined, claimed: ClaimedDelivery, run: () => Promise<T>): Promise<T> {
  if (!tracer) return run();
  const attributes = {
    'presence.tenant_id': claimed.endpoint.tenantId,
    'presence.webhook.delivery_id': claimed.delivery.id,
    'presence.webhook.event_type': claimed.event.type,
  };
  const traceParent = claimed.event.traceParent;
  const parent =
    traceParent === null ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
  const span = tracer.startSpan('webhook attempt', { kind: SpanKind.INTERNAL, attributes }, parent);
  return context.with(trace.setSpan(parent, span), run).finally(() => span.end());
}

/** Resolves when the first promise settles or after `ms`, whichever comes first. */
async function firstOf(promises: Promise<void>[], ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([...promises, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
