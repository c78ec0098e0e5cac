import type { Kysely } from 'kysely';
import type { ClaimedDelivery } from '../../domain/webhooks/ports.js';
import type { Database } from '../schema.js';
import { toDelivery } from './webhook-rows.js';
import { toEndpoint } from './webhook-endpoints.js';

/** Leased deliveries with their endpoint and event; a delivery whose endpoint is gone is left out. */
export async function loadClaimed(db: Kysely<Database>, ids: readonly string[]): Promise<ClaimedDelivery[]> {
  if (ids.length === 0) return [];
  const deliveries = (
    await db.selectFrom('webhook_deliveries').selectAll().where('id', 'in', ids).execute()
  ).map(toDelivery);
  const endpointIds = [...new Set(deliveries.map((d) => d.endpointId))];
  const eventIds = [...new Set(deliveries.map((d) => d.eventId))];
  const endpoints = new Map(
    (await db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', endpointIds).execute()).map(
      (row) => [row.id, toEndpoint(row)],
    ),
  );
  const events = new Map(
    (
      await db
        .selectFrom('outbox_events')
        .select(['id', 'type', 'created_at', 'payload', 'trace_parent'])
        .where('id', 'in', eventIds)
        .execute()
    ).map((row) => [
      row.id,
      {
        id: row.id,
        type: row.type,
        createdAt: row.created_at,
        payloadJson: row.payload,
        traceParent: row.trace_parent ?? null,
      },
    ]),
  );
  return deliveries.flatMap((delivery) => {
    const endpoint = endpoints.get(delivery.endpointId);
    const event = events.get(delivery.eventId);
    return endpoint && event ? [{ delivery, endpoint, event }] : [];
  });
}
