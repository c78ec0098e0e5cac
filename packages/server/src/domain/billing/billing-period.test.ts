import { describe, expect, it } from 'vitest';
import {
  bucketStart,
  nextBucketStart,
  nextPeriod,
  parsePeriod,
  periodContaining,
  previousPeriod,
} from './billing-period.js';
import { latestClosablePeriod } from './close-due-periods.js';

describe('billing periods (UTC months, [start, end))', () => {
  it('puts the last millisecond of a month in it and the next one in the next month', () => {
    const feb = parsePeriod('2028-02')!;
    expect(feb).toEqual({ label: '2028-02', start: Date.UTC(2028, 1, 1), end: Date.UTC(2028, 2, 1) });
    expect(periodContaining(feb.end - 1).label).toBe('2028-02');
    expect(periodContaining(feb.end).label).toBe('2028-03');
    expect(nextPeriod(parsePeriod('2028-12')!).label).toBe('2029-01');
    expect(previousPeriod(parsePeriod('2028-01')!).label).toBe('2027-12');
    expect(parsePeriod('2028-13')).toBeUndefined();
    expect(parsePeriod('2028-1')).toBeUndefined();
  });

  it('buckets by UTC hour, day and month', () => {
    const t = Date.UTC(2028, 1, 29, 23, 59, 59, 999);
    expect(bucketStart('hour', t)).toBe(Date.UTC(2028, 1, 29, 23));
    expect(bucketStart('day', t)).toBe(Date.UTC(2028, 1, 29));
    expect(bucketStart('month', t)).toBe(Date.UTC(2028, 1, 1));
    expect(nextBucketStart('month', Date.UTC(2028, 1, 1))).toBe(Date.UTC(2028, 2, 1));
    expect(nextBucketStart('day', Date.UTC(2028, 1, 29))).toBe(Date.UTC(2028, 2, 1));
  });

  it('makes a period closable only once the grace window after its end has passed', () => {
    const grace = 48 * 3_600_000;
    expect(latestClosablePeriod(Date.UTC(2028, 2, 3) - 1, grace).label).toBe('2028-01');
    expect(latestClosablePeriod(Date.UTC(2028, 2, 3), grace).label).toBe('2028-02');
    expect(latestClosablePeriod(Date.UTC(2028, 2, 1), 0).label).toBe('2028-02');
  });
});
