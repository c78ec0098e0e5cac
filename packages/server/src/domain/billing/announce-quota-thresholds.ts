import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { outboxEvent } from '../events/record-event.js';
import type { StoreTx } from '../ports.js';
import type { QuotaCounter, QuotaThreshold } from './ports.js';
import type { BillingPeriod } from './billing-period.js';

const THRESHOLDS: readonly QuotaThreshold[] = [80, 100];

/** The number of challenges at which a threshold is reached: ⌈quota × percent / 100⌉. */
export function thresholdUnits(quota: number, threshold: QuotaThreshold): number {
  return Math.ceil((quota * threshold) / 100);
}

/**
 * Emits `usage.quota_threshold` for each threshold the counter has reached and not yet
 * announced this period: once per period each, because the marker is a compare-and-set on the
 * counter row written in the same statement as the event. A quota of 0 announces nothing.
 */
export async function announceQuotaThresholds(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  period: BillingPeriod,
  quota: number,
  counter: QuotaCounter,
): Promise<void> {
  if (quota <= 0) return;
  for (const threshold of THRESHOLDS) {
    const announced = threshold === 80 ? counter.threshold80At : counter.threshold100At;
    if (announced !== null || counter.used < thresholdUnits(quota, threshold)) continue;
    const event = outboxEvent(deps, tenantId, 'usage.quota_threshold', {
      meter: 'challenges.created',
      thresholdPercent: threshold,
      quota,
      used: counter.used,
      period: period.label,
      periodStart: toIso(period.start),
      resetsAt: toIso(period.end),
    });
    await tx.billing.quotas.announceThreshold(tenantId, period.start, threshold, event);
  }
}
