import { WEBHOOK_TEST_EVENT, type WebhookDelivery } from '@presence/contract';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { PageRequest, StoreTx } from '../ports.js';
import type { DeliveryStatus, WebhookDeliveryRecord, WebhookEndpointRecord } from './ports.js';
import { toWebhookDelivery } from './to-webhook-dto.js';

async function withAttempts(
  deps: Pick<Deps, 'store' | 'clock'>,
  deliveries: readonly WebhookDeliveryRecord[],
): Promise<WebhookDelivery[]> {
  const attempts = await deps.store.webhooks.deliveries.attemptsOf(deliveries.map((d) => d.id));
  const now = deps.clock.now();
  return deliveries.map((d) =>
    toWebhookDelivery(
      d,
      attempts.filter((a) => a.deliveryId === d.id),
      now,
    ),
  );
}

async function enabledEndpoint(tx: StoreTx, tenantId: string, id: string): Promise<WebhookEndpointRecord> {
  const endpoint = await tx.webhooks.endpoints.get(tenantId, id);
  if (!endpoint) throw notFound('the webhook endpoint');
  if (!endpoint.enabled)
    throw new DomainError('conflict', 'the webhook endpoint is disabled; enable it first');
  return endpoint;
}

/** Newest first, each with its attempts (status code, duration, error, response snippet). */
export async function listWebhookDeliveries(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  endpointId: string,
  filter: { status?: DeliveryStatus | undefined },
  page: PageRequest,
): Promise<{ items: WebhookDelivery[]; hasMore: boolean }> {
  if (!(await deps.store.webhooks.endpoints.get(tenantId, endpointId)))
    throw notFound('the webhook endpoint');
  const rows = await deps.store.webhooks.deliveries.listForEndpoint(tenantId, endpointId, filter, {
    limit: page.limit + 1,
    afterId: page.afterId,
  });
  return { items: await withAttempts(deps, rows.slice(0, page.limit)), hasMore: rows.length > page.limit };
}

export async function getWebhookDelivery(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  id: string,
): Promise<WebhookDelivery> {
  const delivery = await deps.store.webhooks.deliveries.get(tenantId, id);
  if (!delivery) throw notFound('the webhook delivery');
  const [dto] = await withAttempts(deps, [delivery]);
  return dto!;
}

/** Sends the delivery again (same delivery id) with a fresh retry schedule. */
export async function redeliverWebhook(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  id: string,
): Promise<WebhookDelivery> {
  const requeued = await deps.store.transaction(async (tx) => {
    const delivery = await tx.webhooks.deliveries.get(tenantId, id);
    if (!delivery) throw notFound('the webhook delivery');
    await enabledEndpoint(tx, tenantId, delivery.endpointId);
    const row = await tx.webhooks.deliveries.requeue(tenantId, id, deps.clock.now());
    if (!row) throw new DomainError('conflict', 'an attempt of this delivery is in progress');
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'webhook_delivery.redelivered',
      target: { type: 'webhook_delivery', id, name: delivery.eventType },
      detail: { endpointId: delivery.endpointId },
    });
    return row;
  });
  return (await withAttempts(deps, [requeued]))[0]!;
}

/** Re-queues every failed delivery of the endpoint created at or after `since`. */
export async function recoverWebhookDeliveries(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  endpointId: string,
  since: number,
): Promise<{ requeued: number }> {
  return deps.store.transaction(async (tx) => {
    const endpoint = await enabledEndpoint(tx, tenantId, endpointId);
    const requeued = await tx.webhooks.deliveries.requeueFailed(
      tenantId,
      endpointId,
      since,
      deps.clock.now(),
    );
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'webhook_endpoint.deliveries_recovered',
      target: { type: 'webhook_endpoint', id: endpointId, name: endpoint.description ?? undefined },
      detail: { since: new Date(since).toISOString(), requeued },
    });
    return { requeued };
  });
}

/**
 * Queues a `webhook.test` event for this endpoint only: an outbox event that the fan-out skips
 * and one delivery, written together. Test deliveries are not billed.
 */
export async function sendTestWebhook(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  tenantId: string,
  endpointId: string,
): Promise<WebhookDelivery> {
  const delivery = await deps.store.transaction(async (tx) => {
    const endpoint = await enabledEndpoint(tx, tenantId, endpointId);
    const now = deps.clock.now();
    const eventId = newId(deps, 'evt');
    const payload = { endpointId: endpoint.id, message: 'A test event sent from the Presence API.' };
    await tx.outbox.insert({ id: eventId, tenantId, type: WEBHOOK_TEST_EVENT, payload, createdAt: now });
    await tx.webhooks.fanOut.markFannedOut([eventId], now);
    const row = newDelivery(deps, endpoint, { id: eventId, type: WEBHOOK_TEST_EVENT }, now);
    await tx.webhooks.deliveries.insertMany([row]);
    return row;
  });
  return (await withAttempts(deps, [delivery]))[0]!;
}

/** A delivery of one event to one endpoint, due at once. Its id is the X-PRESENCE-Delivery-Id. */
export function newDelivery(
  deps: Pick<Deps, 'clock' | 'random'>,
  endpoint: WebhookEndpointRecord,
  event: { id: string; type: string },
  now: number,
): WebhookDeliveryRecord {
  return {
    id: newId(deps, 'dlv'),
    tenantId: endpoint.tenantId,
    endpointId: endpoint.id,
    eventId: event.id,
    eventType: event.type,
    status: 'pending',
    attemptCount: 0,
    retryCount: 0,
    nextAttemptAt: now,
    leaseToken: null,
    leasedAt: null,
    lastStatusCode: null,
    lastError: null,
    firstSucceededAt: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}
