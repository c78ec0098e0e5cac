import { Type, type Static } from '@sinclair/typebox';
import { Cursor, IsoTime, Limit, prefixedId } from './common.js';
import { WEBHOOK_EVENT_TYPES } from './webhook-events.js';

const EventTypeSchema = Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t)));
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const WebhookUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'http:// or https:// URL without credentials; its host must resolve to public addresses',
});
const Events = Type.Array(EventTypeSchema, { minItems: 1, maxItems: 32, uniqueItems: true });
const Description = Type.String({ maxLength: 200 });

export const WebhookEndpoint = Type.Object(
  {
    endpointId: prefixedId('whe'),
    id: prefixedId('whe', 'alias of endpointId, kept for compatibility'),
    url: Type.String(),
    description: Nullable(Type.String()),
    events: Type.Array(EventTypeSchema),
    enabled: Type.Boolean(),
    disabledReason: Nullable(Type.String()),
    disabledAt: Nullable(IsoTime),
    secretCreatedAt: IsoTime,
    previousSecretExpiresAt: Nullable(IsoTime),
    failingSince: Nullable(IsoTime),
    createdAt: IsoTime,
    updatedAt: IsoTime,
  },
  { $id: 'WebhookEndpoint' },
);
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const CreateWebhookEndpointBody = Type.Object(
  { url: WebhookUrl, events: Events, description: Type.Optional(Description) },
  { $id: 'CreateWebhookEndpointBody', additionalProperties: false },
);
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

/** A partial update: only the fields present change. */
export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(WebhookUrl),
    events: Type.Optional(Events),
    // Null first: with type coercion on, a string-first union would turn null into "".
    description: Type.Optional(Type.Union([Type.Null(), Description])),
    enabled: Type.Optional(Type.Boolean()),
  },
  { $id: 'UpdateWebhookEndpointBody', additionalProperties: false, minProperties: 1 },
);
export type UpdateWebhookEndpointBody = Static<typeof UpdateWebhookEndpointBody>;

/** The only responses that ever contain a signing secret. */
export const WebhookEndpointWithSecret = Type.Object(
  {
    endpoint: WebhookEndpoint,
    secret: Type.String({
      description:
        'whsec_<base64>: shown once. X-PRESENCE-Signature is keyed with this whole string (UTF-8); webhook-signature (Standard Webhooks) with the base64-decoded bytes after whsec_',
    }),
  },
  { $id: 'WebhookEndpointWithSecret' },
);

export const RotateWebhookSecretBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 7 * 86400, default: 86400, description: 'old secret also signs' }),
    ),
  },
  { $id: 'RotateWebhookSecretBody', additionalProperties: false },
);

export const WebhookEndpointParams = Type.Object({ endpointId: prefixedId('whe') });
export const WebhookDeliveryParams = Type.Object({ deliveryId: prefixedId('dlv') });

export const ListWebhookEndpointsQuery = Type.Object(
  { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
  { additionalProperties: false },
);

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const ListWebhookDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(WEBHOOK_DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListWebhookDeliveriesQuery = Static<typeof ListWebhookDeliveriesQuery>;

export const WebhookAttempt = Type.Object(
  {
    attempt: Type.Integer({ minimum: 1 }),
    startedAt: IsoTime,
    durationMs: Type.Integer({ minimum: 0 }),
    statusCode: Nullable(Type.Integer()),
    error: Nullable(Type.String()),
    responseSnippet: Nullable(Type.String({ description: 'the first 4 KiB of the response body' })),
  },
  { $id: 'WebhookAttempt' },
);

export const WebhookDelivery = Type.Object(
  {
    deliveryId: prefixedId('dlv', 'the X-PRESENCE-Delivery-Id and webhook-id of every attempt'),
    id: prefixedId('dlv', 'alias of deliveryId, kept for compatibility'),
    endpointId: prefixedId('whe'),
    eventId: prefixedId('evt'),
    eventType: Type.String(),
    status: Type.Union(WEBHOOK_DELIVERY_STATUSES.map((s) => Type.Literal(s))),
    attemptCount: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(IsoTime),
    lastStatusCode: Nullable(Type.Integer()),
    lastError: Nullable(Type.String()),
    createdAt: IsoTime,
    completedAt: Nullable(IsoTime),
    attempts: Type.Array(WebhookAttempt),
  },
  { $id: 'WebhookDelivery' },
);
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryEnvelope = Type.Object(
  { delivery: WebhookDelivery },
  { $id: 'WebhookDeliveryEnvelope' },
);

export const RecoverWebhookBody = Type.Object(
  { since: IsoTime },
  {
    $id: 'RecoverWebhookBody',
    additionalProperties: false,
    description: 're-queue every failed delivery created at or after `since`',
  },
);
export const RecoverWebhookResult = Type.Object(
  { requeued: Type.Integer({ minimum: 0 }) },
  { $id: 'RecoverWebhookResult' },
);
