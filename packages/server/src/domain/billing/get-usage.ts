import { METERS, type Granularity, type MeterTotals, type UsageReport } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { DomainError, type FieldError } from '../errors.js';
import { bucketStart, nextBucketStart, periodContaining } from './billing-period.js';

/** The longest range per granularity, in buckets: 31 days of hours, 366 days, 120 months. */
export const MAX_BUCKETS: Record<Granularity, number> = { hour: 31 * 24, day: 366, month: 120 };

export interface UsageQueryInput {
  /** With `to`, the range; both omitted: the billing period (calendar month, UTC) containing now. */
  from?: string | undefined;
  to?: string | undefined;
  granularity?: Granularity | undefined;
}

/**
 * Usage per meter over [from, to) and per bucket, read from the rollups kept in each usage
 * event's transaction: a range scan of at most MAX_BUCKETS × meters rows, whatever the number
 * of events. Every bucket of the range is present, every meter in it (0 when none).
 */
export async function getUsage(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  input: UsageQueryInput,
): Promise<UsageReport> {
  const granularity = input.granularity ?? 'day';
  const { from, to } = checkRange(withDefaultRange(input, deps.clock.now()), granularity);
  const buckets = await deps.store.billing.rollups.list(tenantId, granularity, from, to);
  const byStart = new Map<number, MeterTotals>();
  for (let start = from; start < to; start = nextBucketStart(granularity, start)) {
    byStart.set(start, zeroTotals());
  }
  const totals = zeroTotals();
  for (const bucket of buckets) {
    const meter = bucket.meter as keyof MeterTotals;
    const series = byStart.get(bucket.start);
    if (series === undefined || !(meter in totals)) continue;
    series[meter] += bucket.quantity;
    totals[meter] += bucket.quantity;
  }
  const series = [...byStart].map(([start, t]) => ({ start: toIso(start), totals: t }));
  return { from: toIso(from), to: toIso(to), granularity, totals, series };
}

export function zeroTotals(): MeterTotals {
  return Object.fromEntries(METERS.map((m) => [m, 0])) as MeterTotals;
}

/** Neither bound given: the current billing period. One bound alone is a 400 naming the other. */
function withDefaultRange(input: UsageQueryInput, now: number): { from: string; to: string } {
  if (input.from !== undefined && input.to !== undefined) return { from: input.from, to: input.to };
  if (input.from === undefined && input.to === undefined) {
    const period = periodContaining(now);
    return { from: toIso(period.start), to: toIso(period.end) };
  }
  const missing = input.from === undefined ? 'from' : 'to';
  const message = 'give both from and to, or neither (the current billing period)';
  throw new DomainError('invalid_request', `querystring/${missing}: ${message}`, [
    { field: `querystring/${missing}`, message },
  ]);
}

/** A bad range is a 400 naming the field, never an empty report. */
function checkRange(
  input: { from: string; to: string },
  granularity: Granularity,
): { from: number; to: number } {
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  const fields: FieldError[] = [];
  const aligned = (ms: number) => bucketStart(granularity, ms) === ms;
  if (!(from >= 0)) fields.push({ field: 'querystring/from', message: 'must be a time after 1970-01-01' });
  if (!(to > from)) fields.push({ field: 'querystring/to', message: 'must be after from' });
  if (from >= 0 && !aligned(from)) fields.push(misaligned('from', granularity));
  if (to > from && !aligned(to)) fields.push(misaligned('to', granularity));
  if (fields.length === 0) {
    let count = 0;
    for (let s = from; s < to && count <= MAX_BUCKETS[granularity]; s = nextBucketStart(granularity, s))
      count++;
    if (count > MAX_BUCKETS[granularity]) {
      fields.push({
        field: 'querystring/to',
        message: `the range is longer than ${MAX_BUCKETS[granularity]} ${granularity}s; query it in parts or use a coarser granularity`,
      });
    }
  }
  if (fields.length > 0) {
    throw new DomainError(
      'invalid_request',
      fields.map((f) => `${f.field}: ${f.message}`).join('; '),
      fields,
    );
  }
  return { from, to };
}

function misaligned(name: 'from' | 'to', granularity: Granularity): FieldError {
  const example = {
    hour: '2025-01-01T13:00:00Z',
    day: '2025-01-01T00:00:00Z',
    month: '2025-01-01T00:00:00Z',
  };
  return {
    field: `querystring/${name}`,
    message: `must be the start of a UTC ${granularity} (e.g. ${example[granularity]}) for granularity=${granularity}`,
  };
}
