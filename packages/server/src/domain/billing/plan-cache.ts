import { ReadThroughCache } from '../bounded-cache.js';
import type { Deps } from '../deps.js';
import type { Clock } from '../ports.js';
import type { BillingRepos, PlanAssignmentRecord } from './ports.js';

/**
 * How long the plan assignment in force for a period may be served from memory to a new
 * challenge (its monthly quota). A plan set through this process applies at once (setPlan forgets
 * the entry); one set through another process (another instance, the CLI) applies here within
 * this time. Invoices, usage and the plan API always read the database.
 */
export const PLAN_CACHE_TTL_MS = 5_000;

/** The assignment in force (null: none, the default plan applies), by `<tenant>/<period start>`. */
export type PlanCache = ReadThroughCache<{ assignment: PlanAssignmentRecord | null }>;

export function createPlanCache(clock: Clock, maxEntries = 10_000): PlanCache {
  return new ReadThroughCache({ maxEntries, ttlMs: PLAN_CACHE_TTL_MS, now: () => clock.now() });
}

export function planCacheKey(tenantId: string, periodStart: number): string {
  return `${tenantId}/${periodStart}`;
}

/** billing.plans.inForce, from memory for up to PLAN_CACHE_TTL_MS. */
export async function cachedPlanInForce(
  deps: Pick<Deps, 'plans'>,
  billing: BillingRepos,
  tenantId: string,
  periodStart: number,
): Promise<PlanAssignmentRecord | undefined> {
  const entry = await deps.plans.read(planCacheKey(tenantId, periodStart), async () => ({
    assignment: (await billing.plans.inForce(tenantId, periodStart)) ?? null,
  }));
  return entry?.assignment ?? undefined;
}
