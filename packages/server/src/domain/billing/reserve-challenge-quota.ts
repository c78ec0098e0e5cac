import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { toIso } from '../encoding.js';
import type { StoreTx } from '../ports.js';
import { announceQuotaThresholds } from './announce-quota-thresholds.js';
import type { QuotaCounter } from './ports.js';
import { periodContaining, type BillingPeriod } from './billing-period.js';
import { cachedPlanInForce } from './plan-cache.js';
import { planOf } from './resolve-plan.js';

export interface ChallengeQuota {
  period: BillingPeriod;
  /** The plan's monthly challenge quota; null: no limit. */
  limit: number | null;
}

/**
 * The quota that applies to a challenge created at `now`: the plan in force for its period, read
 * through the plan cache (plan-cache.ts) since every challenge creation needs it.
 */
export async function challengeQuota(
  deps: Pick<Deps, 'billing' | 'plans'>,
  tx: StoreTx,
  tenantId: string,
  now: number,
): Promise<ChallengeQuota> {
  const period = periodContaining(now);
  const assignment = await cachedPlanInForce(deps, tx.billing, tenantId, period.start);
  const { plan } = planOf(deps, tenantId, assignment);
  return { period, limit: plan.monthlyChallengeQuota };
}

/**
 * After one challenge was taken from the tenant's monthly quota, inside the transaction that
 * creates the challenge (so a rolled-back creation gives it back): the counter row is incremented
 * only while below the quota, in one statement that holds the row lock until commit, so parallel
 * creations near the quota never exceed it (bound 0), on PostgreSQL as on SQLite. `counter` is
 * undefined when the quota was used up: throws quota_exceeded (429, with when the quota resets),
 * which rolls the creation back. Verifying is never metered here.
 */
export async function settleChallengeQuota(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  quota: ChallengeQuota,
  counter: QuotaCounter | undefined,
  now: number,
): Promise<void> {
  if (!counter) throw quotaExceeded(quota.limit ?? 0, quota.period, now);
  if (quota.limit !== null)
    await announceQuotaThresholds(deps, tx, tenantId, quota.period, quota.limit, counter);
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
