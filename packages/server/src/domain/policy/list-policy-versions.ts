import type { PolicyVersion } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toPolicyVersion } from './put-policy.js';

/** The tenant's policy versions, newest first (every version is immutable). */
export async function listPolicyVersions(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  limit: number,
): Promise<PolicyVersion[]> {
  return (await deps.store.policies.history(tenantId, limit)).map(toPolicyVersion);
}
