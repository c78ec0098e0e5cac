import type { Approval } from '@presence/contract';
import type { Deps } from '../deps.js';
import type { StoreTx } from '../ports.js';
import { toApprovalView } from './approval-view.js';
import type { ApprovalRecord } from './ports.js';

/** An approval with its approvers and set, as the API returns it; undefined when not in the tenant. */
export async function readApproval(
  deps: Pick<Deps, 'clock'>,
  store: StoreTx,
  tenantId: string,
  approvalId: string,
): Promise<Approval | undefined> {
  const approval = await store.approvals.approvals.get(tenantId, approvalId);
  return approval && viewOf(deps, store, approval);
}

export async function viewOf(
  deps: Pick<Deps, 'clock'>,
  store: StoreTx,
  approval: ApprovalRecord,
): Promise<Approval> {
  const [approvers, set] = await Promise.all([
    store.approvals.approvers.listFor(approval.tenantId, [approval.id]),
    approval.status === 'approved'
      ? store.approvals.sets.get(approval.tenantId, approval.id)
      : Promise.resolve(undefined),
  ]);
  return toApprovalView(approval, approvers, set, deps.clock.now());
}
