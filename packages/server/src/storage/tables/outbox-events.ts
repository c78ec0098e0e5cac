/**
 * The outbox_events table, spelled in one place: the columns an event is written with, its row, its
 * insert with the values in column order, and the same insert from a CTE for PostgreSQL's
 * statements. The repo (repos/outbox.ts), the quota threshold events
 * (repos/billing-usage.ts) and the hot path (hot-path/statements.ts, presence-hot-path.ts) build
 * from it. `fanned_out_at` is the webhook fan-out's, written later (repos/webhook-fan-out.ts).
 */
import type { OutboxEventRecord } from '../../domain/events/ports.js';
import type { OutboxEventsTable } from '../schema.js';
import { inColumnOrder, placeholders } from './sql-text.js';

/** The columns of a new event, in the order of `outboxEventValues`. */
export const OUTBOX_EVENT_COLUMNS = [
  'id',
  'tenant_id',
  'type',
  'payload',
  'created_at',
  'trace_parent',
] as const satisfies readonly (keyof OutboxEventsTable)[];

/** A new event's row: the payload as JSON text (`undefined` as null), and the trace it continues. */
export function toOutboxEventRow(
  e: OutboxEventRecord,
  traceParent: string | null,
): Pick<OutboxEventsTable, (typeof OUTBOX_EVENT_COLUMNS)[number]> {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    type: e.type,
    payload: JSON.stringify(e.payload ?? null),
    created_at: e.createdAt,
    trace_parent: traceParent,
  };
}

/** An insert's values in OUTBOX_EVENT_COLUMNS order. */
export function outboxEventValues(e: OutboxEventRecord, traceParent: string | null): unknown[] {
  const row = toOutboxEventRow(e, traceParent);
  return OUTBOX_EVENT_COLUMNS.map((column) => row[column]);
}

/** The insert, its values in OUTBOX_EVENT_COLUMNS order (`outboxEventValues`). */
export const INSERT_EVENT = `insert into outbox_events (${OUTBOX_EVENT_COLUMNS})
  values (${placeholders(OUTBOX_EVENT_COLUMNS)})`;

/** PostgreSQL: an event for each row of `source` (a CTE), one expression per column. */
export function insertEventsFrom(
  source: string,
  expressions: Record<(typeof OUTBOX_EVENT_COLUMNS)[number], string>,
): string {
  return `insert into outbox_events (${OUTBOX_EVENT_COLUMNS})
    select ${inColumnOrder(OUTBOX_EVENT_COLUMNS, expressions)} from ${source}`;
}
