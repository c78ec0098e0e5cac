import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { toIso } from '../encoding.js';
import type { StoreTx } from '../ports.js';
import { announceQuotaThresholds } from './announce-quota-thresholds.js';
import { periodContaining, type BillingPeriod } from './billing-period.js';
import { resolvePlan } from './resolve-plan.js';

/**
 * Takes one challenge from the tenant's monthly quota, inside the transaction that creates the
 * challenge (so a rolled-back creation gives it back). The counter row is incremented only while
 * below the quota, in one statement that holds the row lock until commit: parallel creations
 * near the quota never exceed it (bound 0), on PostgreSQL as on SQLite. Throws quota_exceeded
 * (429, with when the quota resets) when it is used up. Verifying is never metered here.
 */
export async function reserveChallengeQuota(
  deps: Pick<Deps, 'clock' | 'random' | 'billing'>,
  tx: StoreTx,
  tenantId: string,
): Promise<void> {
  const now = deps.clock.now();
  const period = periodContaining(now);
  const { plan } = await resolvePlan(deps, tx.billing, tenantId, period.start);
  const quota = plan.monthlyChallengeQuota;
  const counter = await tx.billing.quotas.increment(tenantId, period.start, quota);
  if (!counter) throw quotaExceeded(quota ?? 0, period, now);
  if (quota !== null) await announceQuotaThresholds(deps, tx, tenantId, period, quota, counter);
}

function quotaExceeded(quota: number, period: BillingPeriod, now: number): DomainError {
  return new DomainError(
    'quota_exceeded',
    `the monthly quota of ${quota} challenges for ${period.label} is used up; it resets at ${toIso(period.end)}. ` +
      'Challenges already issued can still be verified.',
    [],
    { retryAfterSeconds: Math.max(1, Math.ceil((period.end - now) / 1000)) },
  );
}
