import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';

export type Meter =
  'challenges.created' | 'presence.verified' | 'presence.denied' | 'receipts.exported' | 'webhooks.delivered';

/**
 * Counts one billable unit inside the transaction of the change it bills. `sourceId` is the id of
 * that change; (meter, sourceId) is unique, so a retry can never count twice.
 */
export async function recordUsage(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  meter: Meter,
  sourceId: string,
  quantity = 1,
): Promise<void> {
  await tx.usage.insert({
    id: newId(deps, 'use'),
    tenantId,
    meter,
    quantity,
    occurredAt: deps.clock.now(),
    sourceId,
  });
}
