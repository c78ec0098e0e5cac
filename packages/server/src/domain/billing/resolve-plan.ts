import type { PlanAssignment } from '@presence/contract';
import type { Deps } from '../deps.js';
import type { BillingRepos, PlanAssignmentRecord } from './ports.js';
import { periodContaining } from './billing-period.js';

/**
 * The plan that prices the period starting at `periodStart`: the tenant's latest assignment
 * effective from that period or earlier, else the configured default.
 */
export async function resolvePlan(
  deps: Pick<Deps, 'billing'>,
  billing: BillingRepos,
  tenantId: string,
  periodStart: number,
): Promise<PlanAssignment> {
  return planOf(deps, tenantId, await billing.plans.inForce(tenantId, periodStart));
}

/** What an assignment in force (or none) means: the assigned plan, else the configured default. */
export function planOf(
  deps: Pick<Deps, 'billing'>,
  tenantId: string,
  assignment: PlanAssignmentRecord | undefined,
): PlanAssignment {
  if (!assignment)
    return { tenantId, plan: deps.billing.defaultPlan, effectiveFrom: null, source: 'default' };
  return {
    tenantId,
    plan: assignment.plan,
    effectiveFrom: periodContaining(assignment.effectiveFrom).label,
    source: 'tenant',
  };
}
