import type { WebhookEventData, WebhookEventType } from '@presence/contract';
import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';

/**
 * Writes an event to the transactional outbox inside the caller's transaction: the event exists
 * if and only if the change that caused it committed. Types and payloads come from the one
 * table in the contract (WEBHOOK_EVENTS), so an event cannot be recorded with another shape. Delivery happens later, from the worker.
 */
export async function recordEvent<K extends WebhookEventType>(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: StoreTx,
  tenantId: string,
  type: K,
  data: WebhookEventData<K>,
): Promise<string> {
  const id = newId(deps, 'evt');
  await tx.outbox.insert({ id, tenantId, type, payload: data, createdAt: deps.clock.now() });
  return id;
}
