import type { WebhookDelivery } from '@presence/contract';
import type { Deps } from '../deps.js';
import { webhookBody } from './sign-webhook.js';

/** How much of a request body the console shows (response snippets are capped when stored). */
export const REQUEST_BODY_CAP = 8192;

export interface DeliveryBody {
  /** The exact bytes every attempt sent, cut at REQUEST_BODY_CAP; null once the event is gone. */
  requestBody: string | null;
  truncated: boolean;
}

/**
 * The request body of each delivery, rebuilt from its stored event exactly as the worker sends
 * it (`webhookBody`), keyed by delivery id. Responses are in the attempts' capped snippets.
 */
export async function readDeliveryBodies(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  deliveries: readonly WebhookDelivery[],
): Promise<Map<string, DeliveryBody>> {
  const events = new Map(
    (await deps.store.outbox.getMany(tenantId, [...new Set(deliveries.map((d) => d.eventId))])).map((e) => [
      e.id,
      e,
    ]),
  );
  const out = new Map<string, DeliveryBody>();
  for (const d of deliveries) {
    const event = events.get(d.eventId);
    const body = event ? webhookBody(event) : null;
    out.set(d.id, {
      requestBody: body === null ? null : body.slice(0, REQUEST_BODY_CAP),
      truncated: body !== null && body.length > REQUEST_BODY_CAP,
    });
  }
  return out;
}
