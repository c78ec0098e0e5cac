/**
 * Billing periods and usage buckets, all in UTC. A period is a calendar month, [start, end):
 * an event belongs to the period that contains its `occurredAt`, so a unit at the boundary
 * lands in exactly one period.
 */
import type { Granularity } from '@presence/contract';

export interface BillingPeriod {
  /** `YYYY-MM` */
  label: string;
  /** First millisecond of the month (inclusive). */
  start: number;
  /** First millisecond of the next month (exclusive). */
  end: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const PERIOD_LABEL = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function periodContaining(ms: number): BillingPeriod {
  const d = new Date(ms);
  return periodOfMonth(d.getUTCFullYear(), d.getUTCMonth());
}

/** `2025-01` → January 2025; undefined when the label is not a valid YYYY-MM. */
export function parsePeriod(label: string): BillingPeriod | undefined {
  const match = PERIOD_LABEL.exec(label);
  if (!match) return undefined;
  return periodOfMonth(Number(match[1]), Number(match[2]) - 1);
}

export function nextPeriod(period: BillingPeriod): BillingPeriod {
  return periodContaining(period.end);
}

export function previousPeriod(period: BillingPeriod): BillingPeriod {
  return periodContaining(period.start - 1);
}

function periodOfMonth(year: number, monthIndex: number): BillingPeriod {
  const start = Date.UTC(year, monthIndex, 1);
  const end = Date.UTC(year, monthIndex + 1, 1);
  const label = `${String(year).padStart(4, '0')}-${String(monthIndex + 1).padStart(2, '0')}`;
  return { label, start, end };
}

/** The start of the bucket of `granularity` that contains `ms`. */
export function bucketStart(granularity: Granularity, ms: number): number {
  if (granularity === 'hour') return Math.floor(ms / HOUR_MS) * HOUR_MS;
  if (granularity === 'day') return Math.floor(ms / DAY_MS) * DAY_MS;
  return periodContaining(ms).start;
}

/** The start of the bucket after the one starting at `start`. */
export function nextBucketStart(granularity: Granularity, start: number): number {
  if (granularity === 'hour') return start + HOUR_MS;
  if (granularity === 'day') return start + DAY_MS;
  return periodContaining(start).end;
}
