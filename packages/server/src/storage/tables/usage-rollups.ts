/**
 * The usage_rollups table, spelled in one place: its columns, the rows a usage event adds to (its
 * month, day and hour), the upsert that adds to them unless the month is sealed, and the rows that
 * seal a month. The usage repo (repos/usage.ts), the rollup repo (repos/billing-usage.ts), the hot
 * path (hot-path/statements.ts, run-statement.ts) and the usage bench's seeder build from it.
 */
import type { Granularity } from '@presence/contract';
import { bucketStart } from '../../domain/billing/billing-period.js';
import type { UsageEventRecord } from '../../domain/usage/ports.js';
import type { UsageRollupsTable } from '../schema.js';
import { inColumnOrder, literal } from './sql-text.js';

/** Month first: it carries the seal, and every writer locks a usage's buckets in this order. */
export const GRANULARITIES = ['month', 'day', 'hour'] as const satisfies readonly Granularity[];

/** Every column, in insert order. */
export const USAGE_ROLLUP_COLUMNS = [
  'tenant_id',
  'granularity',
  'bucket_start',
  'meter',
  'quantity',
  'sealed',
] as const satisfies readonly (keyof UsageRollupsTable)[];

/** The primary key: one row per tenant, granularity, bucket and meter. */
export const USAGE_ROLLUP_KEY = [
  'tenant_id',
  'granularity',
  'bucket_start',
  'meter',
] as const satisfies readonly (typeof USAGE_ROLLUP_COLUMNS)[number][];

type Usage = Pick<UsageEventRecord, 'tenantId' | 'meter' | 'quantity' | 'occurredAt'>;

/** The starts of a usage's month, day and hour buckets, in GRANULARITIES order. */
export function rollupBuckets(at: number): [number, number, number] {
  return [bucketStart('month', at), bucketStart('day', at), bucketStart('hour', at)];
}

/** The rows a usage adds to, in GRANULARITIES order (the upsert adds each to the stored one). */
export function toUsageRollupRows(u: Usage): UsageRollupsTable[] {
  return GRANULARITIES.map((granularity) => ({
    tenant_id: u.tenantId,
    granularity,
    bucket_start: bucketStart(granularity, u.occurredAt),
    meter: u.meter,
    quantity: u.quantity,
    sealed: 0,
  }));
}

/** The month rows that seal a period: a row not yet there is created sealed, with nothing counted. */
export function toSealedMonthRows(tenantId: string, monthStart: number, meters: Iterable<string>) {
  return [...meters].sort().map((meter): UsageRollupsTable => ({
    tenant_id: tenantId,
    granularity: 'month',
    bucket_start: monthStart,
    meter,
    quantity: 0,
    sealed: 1,
  }));
}

/** An upsert's conflict clause: adds to a stored rollup unless it is sealed (then no row comes back). */
export const ADD_UNLESS_SEALED = `on conflict (${USAGE_ROLLUP_KEY})
    do update set quantity = usage_rollups.quantity + excluded.quantity where usage_rollups.sealed = 0`;

/**
 * $1 tenant, $2 meter, $3 quantity, $4 month start, $5 day start, $6 hour start. Returns one row
 * per bucket counted: fewer than three means the month is sealed.
 */
export const ADD_TO_ROLLUPS = `insert into usage_rollups (${USAGE_ROLLUP_COLUMNS})
  values ${GRANULARITIES.map(
    (granularity, i) =>
      `(${inColumnOrder(USAGE_ROLLUP_COLUMNS, {
        tenant_id: '$1',
        granularity: literal(granularity),
        bucket_start: `$${4 + i}`,
        meter: '$2',
        quantity: '$3',
        sealed: '0',
      })})`,
  ).join(', ')}
  ${ADD_UNLESS_SEALED}
  returning granularity`;

/** ADD_TO_ROLLUPS's values. */
export function addToRollupsValues(u: Usage): unknown[] {
  return [u.tenantId, u.meter, u.quantity, ...rollupBuckets(u.occurredAt)];
}

/**
 * PostgreSQL: the same upsert inside a statement, for a usage of one unit that counts once per row
 * of `source` (a CTE: none when nothing was written). `buckets` are the month, day and hour starts
 * (bigint placeholders).
 */
export function addOneFrom(
  source: string,
  tenant: string,
  meter: string,
  buckets: readonly [string, string, string],
): string {
  const values = GRANULARITIES.map((g, i) => `(${literal(g)}, ${buckets[i]}::bigint)`).join(', ');
  return `insert into usage_rollups (${USAGE_ROLLUP_COLUMNS})
    select ${inColumnOrder(USAGE_ROLLUP_COLUMNS, {
      tenant_id: tenant,
      granularity: 'b.granularity',
      bucket_start: 'b.bucket_start',
      meter,
      quantity: '1',
      sealed: '0',
    })}
      from ${source} cross join (values ${values}) as b (granularity, bucket_start)
    ${ADD_UNLESS_SEALED}
    returning granularity`;
}

/**
 * PostgreSQL: the number of rollup rows a statement's `rollup` CTE counted, which must be the number
 * `wanted` (one per bucket the statement's usage falls in). When a rollup was sealed (its month is
 * invoiced) it counted fewer, and the division by zero (SQLSTATE 22012) fails the WHOLE statement,
 * so it commits nothing even when it runs on its own (autocommit). The hot path turns that error
 * into BillingPeriodClosed.
 */
export const rollupsOrFail = (wanted: string) =>
  `(select count(*) / (count(*) = ${wanted})::int from rollup)::int`;

/** The rule above for a statement that counts one unit, if its `written` CTE wrote: month, day, hour. */
export const allRollupsOrFail = (written: string) =>
  rollupsOrFail(`(case when exists (select 1 from ${written}) then ${GRANULARITIES.length} else 0 end)`);

/** SQLSTATE of the failure above. */
export const PG_ROLLUP_SEALED_SQLSTATE = '22012';
