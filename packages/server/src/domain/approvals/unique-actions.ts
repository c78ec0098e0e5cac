import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { StoreTx } from '../ports.js';
import { currentPolicyForChallenge } from '../policy/get-policy.js';

/** Whether the tenant's current policy turns uniqueActions on (read before a transaction). */
export async function uniqueActionsOn(deps: RuleDeps, tenantId: string): Promise<boolean> {
  return (await currentPolicyForChallenge(deps, tenantId)).rules.uniqueActions === true;
}

type RuleDeps = Pick<Deps, 'store' | 'clock' | 'currentPolicies'>;

/**
 * Policy rule uniqueActions (docs/api-contract.md#13-approvals), for a new approval or challenge of `actionHashHex`:
 * with the rule off, nothing (no query). With it on, 409 action_already_approved when a receipt
 * (other than an approval ceremony's) or an approved approval already exists for the action, or
 * when another live challenge or approval holds the action's claim; otherwise `holder` takes the
 * claim with one upsert, so of two racing creators exactly one goes on.
 */
export async function claimUniqueAction(
  deps: RuleDeps,
  tx: StoreTx,
  tenantId: string,
  actionHashHex: string,
  holder: { holderId: string; until: number },
  enabled: boolean,
): Promise<void> {
  if (!enabled) return;
  const repo = tx.approvals.uniqueActions;
  const receiptId = await repo.firstDirectReceipt(tenantId, actionHashHex);
  if (receiptId !== undefined) throw alreadyApproved(`receipt ${receiptId} already verified this action`);
  const approved = await tx.approvals.approvals.findApprovedByAction(tenantId, actionHashHex);
  if (approved) throw alreadyApproved(`approval ${approved.id} already approved this action`);
  if (await repo.claim(tenantId, actionHashHex, holder, deps.clock.now())) return;
  const current = await repo.holder(tenantId, actionHashHex);
  throw alreadyApproved(
    `${current?.holderId ?? 'another challenge or approval'} is being decided for this action until ${new Date(current?.until ?? 0).toISOString()}`,
  );
}

function alreadyApproved(detail: string): DomainError {
  return new DomainError('action_already_approved', `uniqueActions: ${detail}`, [
    { field: '/actionHashHex', message: detail },
  ]);
}
