import type { WebhookDelivery, WebhookEndpoint, WebhookEventType } from '@presence/contract';
import { toIso } from '../encoding.js';
import type { WebhookAttemptRecord, WebhookDeliveryRecord, WebhookEndpointRecord } from './ports.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : toIso(ms));

/** The endpoint as the API shows it: never a secret, sealed or not. */
export function toWebhookEndpoint(e: WebhookEndpointRecord): WebhookEndpoint {
  return {
    endpointId: e.id,
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events as WebhookEventType[],
    enabled: e.enabled,
    disabledReason: e.disabledReason,
    disabledAt: isoOrNull(e.disabledAt),
    secretCreatedAt: toIso(e.secretCreatedAt),
    previousSecretExpiresAt: isoOrNull(e.previousSecretExpiresAt),
    failingSince: isoOrNull(e.failingSince),
    createdAt: toIso(e.createdAt),
    updatedAt: toIso(e.updatedAt),
  };
}

/** While leased, `nextAttemptAt` holds the lease's end; the API shows null then (an attempt is running). */
export function toWebhookDelivery(
  d: WebhookDeliveryRecord,
  attempts: readonly WebhookAttemptRecord[],
  now: number,
): WebhookDelivery {
  const leased = d.leaseToken !== null && (d.nextAttemptAt ?? 0) > now;
  return {
    deliveryId: d.id,
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.status === 'pending' && !leased ? isoOrNull(d.nextAttemptAt) : null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    createdAt: toIso(d.createdAt),
    completedAt: isoOrNull(d.completedAt),
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: toIso(a.startedAt),
      durationMs: a.durationMs,
      statusCode: a.statusCode,
      error: a.error,
      responseSnippet: a.responseSnippet,
    })),
  };
}
