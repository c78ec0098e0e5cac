import type { PolicyVersion } from '@presence/contract';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';
import type { PolicyRecord } from './ports.js';
import { toPolicyVersion } from './put-policy.js';

export async function getPolicy(deps: Pick<Deps, 'store'>, tenantId: string): Promise<PolicyVersion> {
  return toPolicyVersion(await currentPolicy(deps, tenantId));
}

export async function currentPolicy(deps: Pick<Deps, 'store'>, tenantId: string): Promise<PolicyRecord> {
  return found(await deps.store.policies.current(tenantId));
}

/**
 * The policy a new challenge is created under: the current version, from memory for up to
 * CURRENT_POLICY_TTL_MS (policy-cache.ts), which saves a query on every challenge creation.
 */
export async function currentPolicyForChallenge(
  deps: Pick<Deps, 'store' | 'currentPolicies'>,
  tenantId: string,
): Promise<PolicyRecord> {
  return found(await deps.currentPolicies.read(tenantId, () => deps.store.policies.current(tenantId)));
}

/** Every tenant has a policy from its creation on; none means no such tenant here. */
function found(policy: PolicyRecord | undefined): PolicyRecord {
  if (!policy) throw notFound('the tenant policy');
  return policy;
}
