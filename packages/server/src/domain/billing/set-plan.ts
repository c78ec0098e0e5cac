import type { Plan, PlanAssignment } from '@presence/contract';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { announceQuotaThresholds } from './announce-quota-thresholds.js';
import { parsePeriod, periodContaining, type BillingPeriod } from './billing-period.js';
import { checkPlan } from './check-plan.js';
import { planCacheKey } from './plan-cache.js';
import { resolvePlan } from './resolve-plan.js';

export interface SetPlanInput {
  tenantId: string;
  plan: Plan;
  /** `YYYY-MM`, the current period or a later one; default: the current period. */
  effectiveFrom?: string | undefined;
}

/**
 * Assigns a plan to a tenant from a period on (an operator action). Periods already begun keep
 * their plan unless the assignment starts with the current one; closed periods never change.
 * A quota lowered below this month's usage announces the thresholds it crosses at once.
 */
export async function setPlan(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'billing' | 'plans' | 'audit'>,
  input: SetPlanInput,
): Promise<PlanAssignment> {
  checkPlan(input.plan, '/plan');
  const current = periodContaining(deps.clock.now());
  const from = input.effectiveFrom === undefined ? current : parsePeriod(input.effectiveFrom);
  if (!from || from.start < current.start) {
    throw new DomainError('invalid_request', `effectiveFrom must be ${current.label} or a later period`, [
      { field: '/effectiveFrom', message: `must be ${current.label} or later (YYYY-MM)` },
    ]);
  }
  try {
    return await assignPlan(deps, input.tenantId, input.plan, current, from);
  } finally {
    // After the commit (or the failure): new challenges here use the new quota from now on. Only
    // the current period can be cached yet; a later `from` is forgotten too in case the month
    // turned while this ran.
    deps.plans.forget(planCacheKey(input.tenantId, current.start));
    deps.plans.forget(planCacheKey(input.tenantId, from.start));
  }
}

/** The assignment, and the thresholds a lowered quota crosses this month, in one transaction. */
function assignPlan(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  plan: Plan,
  current: BillingPeriod,
  from: BillingPeriod,
): Promise<PlanAssignment> {
  return deps.store.transaction(async (tx) => {
    if (!(await tx.tenants.get(tenantId))) throw notFound('tenant');
    const assignment = { tenantId, effectiveFrom: from.start, plan };
    await tx.billing.plans.put({ ...assignment, createdAt: deps.clock.now() });
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'plan.assigned',
      target: { type: 'plan', id: from.label, name: plan.name },
      detail: { effectiveFrom: from.label, monthlyChallengeQuota: plan.monthlyChallengeQuota },
    });
    const quota = plan.monthlyChallengeQuota;
    const counter = await tx.billing.quotas.get(tenantId, current.start);
    if (from.start === current.start && quota !== null && counter) {
      await announceQuotaThresholds(deps, tx, tenantId, current, quota, counter);
    }
    return { ...assignment, effectiveFrom: from.label, source: 'tenant' as const };
  });
}

/** The plan in force for the tenant's current period. */
export async function getPlan(
  deps: Pick<Deps, 'store' | 'clock' | 'billing'>,
  tenantId: string,
): Promise<PlanAssignment> {
  if (!(await deps.store.tenants.get(tenantId))) throw notFound('tenant');
  return resolvePlan(deps, deps.store.billing, tenantId, periodContaining(deps.clock.now()).start);
}
