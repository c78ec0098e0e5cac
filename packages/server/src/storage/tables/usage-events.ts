/**
 * The usage_events table, spelled in one place: its columns, its row and its insert's values in
 * column order. The repo (repos/usage.ts) and the hot path (hot-path/statements.ts,
 * run-statement.ts) build from it; the rollups a usage event adds to are usage_rollups'.
 */
import type { UsageEventRecord } from '../../domain/usage/ports.js';
import type { UsageEventsTable } from '../schema.js';
import { inColumnOrder, placeholders } from './sql-text.js';

/** Every column, in the order of `usageEventValues`. */
export const USAGE_EVENT_COLUMNS = [
  'id',
  'tenant_id',
  'meter',
  'quantity',
  'occurred_at',
  'source_id',
] as const satisfies readonly (keyof UsageEventsTable)[];

export function toUsageEventRow(u: UsageEventRecord): UsageEventsTable {
  return {
    id: u.id,
    tenant_id: u.tenantId,
    meter: u.meter,
    quantity: u.quantity,
    occurred_at: u.occurredAt,
    source_id: u.sourceId,
  };
}

/** An insert's values in USAGE_EVENT_COLUMNS order. */
export function usageEventValues(u: UsageEventRecord): unknown[] {
  const row = toUsageEventRow(u);
  return USAGE_EVENT_COLUMNS.map((column) => row[column]);
}

/** The insert, its values in USAGE_EVENT_COLUMNS order (`usageEventValues`). */
export const INSERT_USAGE = `insert into usage_events (${USAGE_EVENT_COLUMNS})
  values (${placeholders(USAGE_EVENT_COLUMNS)})`;

/** PostgreSQL: a usage event for each row of `source` (a CTE), one expression per column. */
export function insertUsageFrom(
  source: string,
  expressions: Record<(typeof USAGE_EVENT_COLUMNS)[number], string>,
): string {
  return `insert into usage_events (${USAGE_EVENT_COLUMNS})
    select ${inColumnOrder(USAGE_EVENT_COLUMNS, expressions)} from ${source}`;
}
