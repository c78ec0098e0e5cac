import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';

/**
 * Cancels an open invite of the tenant: its link stops working at once. A race with its
 * acceptance has one winner: `consume` and `cancel` both require it still open, and a cancelled
 * invite expired at the epoch, so an acceptance that read the clock before the cancel committed
 * cannot use it either (with "expired now" it could, and both answered success).
 */
export async function cancelInvite(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  inviteId: string,
): Promise<void> {
  await deps.store.transaction(async (tx) => {
    if (!(await tx.console.invites.cancel(tenantId, inviteId, deps.clock.now()))) {
      throw notFound('the open invite');
    }
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'invite.cancelled',
      target: { type: 'invite', id: inviteId },
    });
  });
}
