import type { Deps } from '../deps.js';
import { newDelivery } from './manage-webhook-deliveries.js';
import type { WebhookDeliveryRecord } from './ports.js';

/**
 * Turns new outbox events into deliveries: one per enabled endpoint of the tenant that subscribes
 * to the type and existed when the event happened. One transaction per batch; on PostgreSQL the
 * events are locked SKIP LOCKED, so processes fan out disjoint batches. Returns the events handled.
 */
export async function fanOutEvents(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  limit: number,
): Promise<number> {
  if (!(await deps.store.webhooks.fanOut.hasPending())) return 0;
  return deps.store.transaction(async (tx) => {
    const events = await tx.webhooks.fanOut.lockPending(limit);
    if (events.length === 0) return 0;
    const tenants = [...new Set(events.map((e) => e.tenantId))];
    const endpoints = await tx.webhooks.endpoints.listEnabled(tenants);
    const now = deps.clock.now();
    const rows: WebhookDeliveryRecord[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.tenantId !== event.tenantId || !endpoint.events.includes(event.type)) continue;
        if (endpoint.createdAt > event.createdAt) continue;
        rows.push(newDelivery(deps, endpoint, event, now));
      }
    }
    await tx.webhooks.deliveries.insertMany(rows);
    await tx.webhooks.fanOut.markFannedOut(
      events.map((e) => e.id),
      now,
    );
    return events.length;
  });
}
