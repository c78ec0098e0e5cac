/** Row ↔ record conversions of webhook deliveries and attempts. */
import type {
  DeliveryStatus,
  WebhookAttemptRecord,
  WebhookDeliveryRecord,
} from '../../domain/webhooks/ports.js';
import type { WebhookAttemptsTable, WebhookDeliveriesTable } from '../schema.js';

export function deliveryRow(d: WebhookDeliveryRecord): WebhookDeliveriesTable {
  return {
    id: d.id,
    tenant_id: d.tenantId,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event_type: d.eventType,
    status: d.status,
    attempt_count: d.attemptCount,
    retry_count: d.retryCount,
    next_attempt_at: d.nextAttemptAt,
    lease_token: d.leaseToken,
    leased_at: d.leasedAt,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    first_succeeded_at: d.firstSucceededAt,
    created_at: d.createdAt,
    updated_at: d.updatedAt,
    completed_at: d.completedAt,
  };
}

export function toDelivery(row: WebhookDeliveriesTable): WebhookDeliveryRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status as DeliveryStatus,
    attemptCount: row.attempt_count,
    retryCount: row.retry_count,
    nextAttemptAt: row.next_attempt_at,
    leaseToken: row.lease_token,
    leasedAt: row.leased_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    firstSucceededAt: row.first_succeeded_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

export function attemptRow(a: WebhookAttemptRecord): WebhookAttemptsTable {
  return {
    delivery_id: a.deliveryId,
    attempt: a.attempt,
    started_at: a.startedAt,
    duration_ms: a.durationMs,
    status_code: a.statusCode,
    error: a.error,
    response_snippet: a.responseSnippet,
  };
}

export function toAttempt(row: WebhookAttemptsTable): WebhookAttemptRecord {
  return {
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    error: row.error,
    responseSnippet: row.response_snippet,
  };
}
