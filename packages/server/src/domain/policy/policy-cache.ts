import { BoundedCache, ReadThroughCache } from '../bounded-cache.js';
import type { Deps } from '../deps.js';
import type { Clock } from '../ports.js';
import type { PolicyRecord } from './ports.js';

/**
 * Policy versions by tenant and id. A version is immutable (a change inserts a new version), so an
 * entry never goes stale and needs no invalidation; the bound only limits memory.
 */
export type PolicyCache = BoundedCache<PolicyRecord>;

export function createPolicyCache(clock: Clock, maxEntries = 10_000): PolicyCache {
  return new BoundedCache<PolicyRecord>({ maxEntries, now: () => clock.now() });
}

/** One policy version, from memory when it was read before. */
export async function policyVersion(
  deps: Pick<Deps, 'store' | 'policies'>,
  tenantId: string,
  policyId: string,
): Promise<PolicyRecord | undefined> {
  const key = `${tenantId}/${policyId}`;
  const cached = deps.policies.get(key);
  if (cached !== undefined) return cached;
  const policy = await deps.store.policies.get(tenantId, policyId);
  if (policy !== undefined) deps.policies.set(key, policy);
  return policy;
}

/**
 * How long a tenant's current policy may be served from memory to a new challenge. A change made
 * through this process applies at once (putPolicy forgets the entry); one made through another
 * process (another instance, the console of another instance) applies here within this time.
 * Only challenge creation reads it: a verification applies the version its challenge names, and
 * the policy API and console always read the database.
 */
export const CURRENT_POLICY_TTL_MS = 5_000;

/** Each tenant's current policy version, by tenant id, for at most CURRENT_POLICY_TTL_MS. */
export type CurrentPolicyCache = ReadThroughCache<PolicyRecord>;

export function createCurrentPolicyCache(clock: Clock, maxEntries = 10_000): CurrentPolicyCache {
  return new ReadThroughCache<PolicyRecord>({
    maxEntries,
    ttlMs: CURRENT_POLICY_TTL_MS,
    now: () => clock.now(),
  });
}
