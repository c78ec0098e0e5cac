import type { Logger } from 'pino';
import type { AttemptOutcome, FinishedAttempt } from '../domain/webhooks/attempt-delivery.js';
import type { Metrics } from '../observability/create-metrics.js';

export type AttemptLabel = 'succeeded' | 'retrying' | 'failed' | 'lease_lost';

/** succeeded; retrying (failed, another attempt is scheduled); failed (gave up); lease_lost. */
export function attemptLabel(outcome: AttemptOutcome): AttemptLabel {
  if (!outcome.recorded) return 'lease_lost';
  return outcome.status === 'pending' ? 'retrying' : outcome.status;
}

/** One log line and the metrics of a recorded webhook attempt (never the body or the secret). */
export function observeAttempt(
  metrics: Pick<Metrics, 'webhookDeliveries' | 'webhookAttemptDuration'> | undefined,
  log: Logger | false,
  { claimed, response }: FinishedAttempt,
  outcome: AttemptOutcome,
): void {
  const label = attemptLabel(outcome);
  metrics?.webhookDeliveries.inc({ outcome: label });
  metrics?.webhookAttemptDuration.observe({ outcome: label }, response.durationMs / 1000);
  if (!log) return;
  const line = {
    tenantId: claimed.endpoint.tenantId,
    endpointId: claimed.endpoint.id,
    deliveryId: claimed.delivery.id,
    eventType: claimed.event.type,
    attempt: claimed.delivery.attemptCount,
    statusCode: response.statusCode,
    durationMs: response.durationMs,
    outcome: label,
    ...(response.error === null ? {} : { error: response.error }),
  };
  if (label === 'succeeded') log.info(line, 'webhook attempt');
  else log.warn(line, 'webhook attempt failed');
  if (outcome.disabledReason !== null) {
    log.warn({ ...line, reason: outcome.disabledReason }, 'webhook endpoint disabled');
  }
}
