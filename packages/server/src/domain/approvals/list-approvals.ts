import type { Approval, ApprovalStatus } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toApprovalView } from './approval-view.js';

export interface ListApprovalsInput {
  status?: ApprovalStatus | undefined;
  limit: number;
  afterId?: string | undefined;
}

/**
 * The tenant's approvals, newest first. The stored status is what filters: an approval past its
 * expiry reads `expired` at once, and is stored so by the expiry job within seconds.
 */
export async function listApprovals(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  input: ListApprovalsInput,
): Promise<{ items: Approval[]; hasMore: boolean }> {
  const rows = await deps.store.approvals.approvals.list(
    tenantId,
    { status: input.status },
    { limit: input.limit + 1, afterId: input.afterId },
  );
  const page = rows.slice(0, input.limit);
  const ids = page.map((a) => a.id);
  const approvers = await deps.store.approvals.approvers.listFor(tenantId, ids);
  const now = deps.clock.now();
  const items = await Promise.all(
    page.map(async (a) =>
      toApprovalView(
        a,
        approvers.filter((r) => r.approvalId === a.id),
        a.status === 'approved' ? await deps.store.approvals.sets.get(tenantId, a.id) : undefined,
        now,
      ),
    ),
  );
  return { items, hasMore: rows.length > input.limit };
}
