import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';

export type EventType =
  | 'receipt.created'
  | 'presence.denied'
  | 'credential.registered'
  | 'credential.revoked'
  | 'invoice.finalized'
  | 'usage.quota_threshold';

/**
 * Writes an event to the transactional outbox inside the caller's transaction: the event exists
 * if and only if the change that caused it committed. Delivery happens later, from the worker.
 */
export async function recordEvent(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  type: EventType,
  data: unknown,
): Promise<string> {
  const id = newId(deps, 'evt');
  await tx.outbox.insert({ id, tenantId, type, payload: data, createdAt: deps.clock.now() });
  return id;
}
