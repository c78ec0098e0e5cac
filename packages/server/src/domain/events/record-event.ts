import type { WebhookEventData, WebhookEventType } from '@presence/contract';
import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';
import type { OutboxEventRecord } from './ports.js';

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
  const event = outboxEvent(deps, tenantId, type, data);
  await tx.outbox.insert(event);
  return event.id;
}

/** The outbox row for an event, for writes that insert it themselves in one statement. */
export function outboxEvent<K extends WebhookEventType>(
  deps: Pick<Deps, 'clock' | 'random'>,
  tenantId: string,
  type: K,
  data: WebhookEventData<K>,
): OutboxEventRecord {
  return { id: newId(deps, 'evt'), tenantId, type, payload: data, createdAt: deps.clock.now() };
}
