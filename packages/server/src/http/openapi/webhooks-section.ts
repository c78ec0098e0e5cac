import { allWebhookEvents, webhookEventSchema } from '@presence/contract';
import type { TSchema } from '@sinclair/typebox';

type Json = Record<string, unknown>;

const header = (name: string, description: string, pattern?: string): Json => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string', ...(pattern === undefined ? {} : { pattern }) },
});

/** The headers of every attempt: the contract's X-PRESENCE-* and Standard Webhooks'. */
const DELIVERY_HEADERS = [
  header('X-PRESENCE-Event', 'the event type'),
  header('X-PRESENCE-Delivery-Id', 'stable across retries of this event to this endpoint: dedupe on it'),
  header('X-PRESENCE-Timestamp', 'Unix seconds of this attempt', '^[0-9]+$'),
  header(
    'X-PRESENCE-Signature',
    'v1=<hex HMAC-SHA256(secret as UTF-8, "<timestamp>.<deliveryId>.<body>")>, one per active secret, space-separated',
  ),
  header('webhook-id', 'Standard Webhooks: the delivery id (same as X-PRESENCE-Delivery-Id)'),
  header('webhook-timestamp', 'Standard Webhooks: the same Unix seconds', '^[0-9]+$'),
  header(
    'webhook-signature',
    'Standard Webhooks: v1,<base64 HMAC-SHA256(base64-decoded secret after whsec_, "<id>.<timestamp>.<body>")>, space-separated',
  ),
];

const eventName = (type: string) =>
  `${type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('')}Event`;

/**
 * Replaces nested schemas that carry a `$id` by references to components of that name, adding
 * the components that are missing; returns the plain JSON of `schema`.
 */
export function referenceNamed(schema: TSchema, components: Json, root = true): Json {
  const plain = JSON.parse(JSON.stringify(schema)) as Json;
  const walk = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => walk(n, false));
    if (node === null || typeof node !== 'object') return node;
    const { $id, ...rest } = node as Json;
    const body = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, walk(v, false)]));
    if (typeof $id !== 'string' || top) return body;
    components[$id] ??= { title: $id, ...body };
    return { $ref: `#/components/schemas/${$id}` };
  };
  return walk(plain, root) as Json;
}

/** The OpenAPI 3.1 `webhooks` section, from the contract's one table of events. */
export function webhooksSection(components: Json): Json {
  const section: Json = {};
  for (const [type, data] of allWebhookEvents()) {
    const name = eventName(type);
    components[name] ??= { title: name, ...referenceNamed(webhookEventSchema(type, data), components) };
    section[type] = {
      post: {
        operationId: `on${name}`,
        summary: `${type} delivery`,
        tags: ['webhooks'],
        description:
          type === 'webhook.test'
            ? 'Sent only by POST /v1/webhooks/endpoints/{endpointId}/test; cannot be subscribed to.'
            : `Sent to every enabled endpoint subscribed to ${type}, at least once.`,
        parameters: DELIVERY_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
        },
        responses: {
          '200': { description: 'Any 2xx acknowledges the delivery; answer once the event is stored' },
          '410': { description: 'Gone: the endpoint is disabled and the delivery fails' },
        },
        security: [],
      },
    };
  }
  return section;
}
