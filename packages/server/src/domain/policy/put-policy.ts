import type { PolicyBody, PolicyVersion } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { canonicalJson, sha256Hex, toIso } from '../encoding.js';
import { newId } from '../ids.js';
import type { PolicyRecord } from './ports.js';
import type { StoreTx } from '../ports.js';
import { UniqueViolation } from '../ports.js';
import { checkRelyingParty } from './check-relying-party.js';
import { resolvePolicy } from './resolve-policy.js';

/**
 * Writes a new immutable policy version; the previous versions stay, receipts name theirs. Every
 * door that writes a policy (PUT /v1/policy, the console, tenant creation) comes through
 * insertPolicyVersion, which refuses an rpId or origin no browser would accept, except for the
 * service's own tenants made from its configuration (`fromConfiguration`: the development and
 * console tenants), whose pages say which address to open instead of failing the start.
 */
export async function putPolicy(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'currentPolicies'>,
  tenantId: string,
  body: PolicyBody,
  options: PolicyWriteOptions = {},
): Promise<PolicyVersion> {
  try {
    return await deps.store.transaction(async (tx) => {
      const current = await tx.policies.current(tenantId);
      const version = (current?.version ?? 0) + 1;
      const record = await insertPolicyVersion(deps, tx, tenantId, body, version, options);
      return toPolicyVersion(record);
    });
  } catch (error) {
    if (error instanceof UniqueViolation) {
      throw new DomainError('conflict', 'the policy was changed concurrently; read it again and retry', [], {
        cause: error,
      });
    }
    throw error;
  } finally {
    // After the commit (or the failure): new challenges here use the new version from now on.
    deps.currentPolicies.forget(tenantId);
  }
}

export interface PolicyWriteOptions {
  /** The policy comes from the service's configuration, not a caller: its rpId is not checked. */
  fromConfiguration?: boolean | undefined;
}

export async function insertPolicyVersion(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  body: PolicyBody,
  version: number,
  options: PolicyWriteOptions = {},
): Promise<PolicyRecord> {
  if (options.fromConfiguration !== true) checkRelyingParty(body);
  const rules = resolvePolicy(body);
  const record: PolicyRecord = {
    id: newId(deps, 'pol'),
    tenantId,
    version,
    rules,
    hashHex: sha256Hex(canonicalJson(rules)),
    createdAt: deps.clock.now(),
  };
  await tx.policies.insert(record);
  return record;
}

export function toPolicyVersion(p: PolicyRecord): PolicyVersion {
  return {
    policyId: p.id,
    version: p.version,
    policyHashHex: p.hashHex,
    createdAt: toIso(p.createdAt),
    rules: p.rules,
  };
}
