import { context, propagation } from '@opentelemetry/api';
import type { Kysely } from 'kysely';
import type { OutboxRepo } from '../../domain/events/ports.js';
import type { Database } from '../schema.js';
import { toOutboxEventRow } from '../tables/outbox-events.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createOutboxRepo(db: Kysely<Database>): OutboxRepo {
  return {
    /** The payload is stored as JSON text; `undefined` is stored as null. */
    async insert(e) {
      const row = toOutboxEventRow(e, currentTraceParent());
      await mapUniqueViolation(() => db.insertInto('outbox_events').values(row).execute());
    },
    async getMany(tenantId, ids) {
      if (ids.length === 0) return [];
      const rows = await db
        .selectFrom('outbox_events')
        .select(['id', 'type', 'created_at', 'payload'])
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', ids)
        .execute();
      return rows.map((r) => ({
        id: r.id,
        type: r.type,
        createdAt: Number(r.created_at),
        payloadJson: r.payload,
      }));
    },
  };
}

/**
 * The active span's W3C traceparent, so the event's webhook attempts continue the trace of the
 * request that recorded it. With tracing off no propagator is registered and this is null.
 */
export function currentTraceParent(): string | null {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'] ?? null;
}
