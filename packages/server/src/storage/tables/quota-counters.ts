/**
 * The quota_counters table, spelled in one place: the counter a challenge creation takes from, its
 * row mapper, and the conditional upsert that takes one unless the period's limit is reached. The
 * quota repo (repos/billing-usage.ts) and the hot path (hot-path/statements.ts,
 * challenge-creation.ts) build from it; the threshold markers are set by the repo's
 * `announceThreshold`.
 */
import type { QuotaCounter } from '../../domain/billing/ports.js';
import type { QuotaCountersTable } from '../schema.js';

/** What a read of the counter returns, in the order of TAKE_QUOTA's `returning`. */
export const QUOTA_COUNTER_COLUMNS = [
  'used',
  'threshold_80_at',
  'threshold_100_at',
] as const satisfies readonly (keyof QuotaCountersTable)[];

export function toQuotaCounter(
  row: Pick<QuotaCountersTable, (typeof QUOTA_COUNTER_COLUMNS)[number]>,
): QuotaCounter {
  return {
    used: Number(row.used),
    threshold80At: row.threshold_80_at === null ? null : Number(row.threshold_80_at),
    threshold100At: row.threshold_100_at === null ? null : Number(row.threshold_100_at),
  };
}

/**
 * $1 tenant, $2 period start, $3 limit (null: none). Adds one challenge to the period's counter
 * unless it reached the limit; no row back when full. Locks the counter row until commit. The
 * casts are PostgreSQL's (it runs this as the first CTE of its creation statement); statements.ts
 * `forSqlite` drops them.
 */
export const TAKE_QUOTA = `insert into quota_counters (tenant_id, period_start, used) values ($1, $2, 1)
  on conflict (tenant_id, period_start) do update set used = quota_counters.used + 1
  where $3::bigint is null or quota_counters.used < $3::bigint
  returning ${QUOTA_COUNTER_COLUMNS}`;

/** TAKE_QUOTA's values. */
export function takeQuotaValues(tenantId: string, periodStart: number, limit: number | null): unknown[] {
  return [tenantId, periodStart, limit];
}
