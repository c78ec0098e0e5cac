/**
 * The webhook events (docs/api-contract.md#8-webhooks): ONE table from event type to the schema of its `data`.
 * Everything else derives from it: the list of types an endpoint can subscribe to, the server's
 * `recordEvent` signature, the SDK's typed `verifyWebhook` result and the `webhooks` section of
 * the OpenAPI document. Add an event here and every one of them follows.
 */
import { Type, type Static, type TLiteral, type TObject, type TSchema } from '@sinclair/typebox';
import { DENIALS } from '../decisions.js';
import { AuditEvent } from './audit.js';
import { Invoice } from './billing.js';
import { HashHex, IsoTime, Subject, prefixedId } from './common.js';
import { Credential } from './credentials.js';
import { Approval } from './approvals.js';

export const ReceiptCreatedData = Type.Object(
  {
    receiptId: prefixedId('rct'),
    challengeId: prefixedId('chl'),
    actionHashHex: HashHex,
    subject: Subject,
    credentialRef: prefixedId('cred'),
    credentialId: Type.String({ description: 'the WebAuthn credential id (base64url)' }),
    receiptHashHex: HashHex,
    issuedAt: IsoTime,
  },
  { $id: 'ReceiptCreatedData' },
);

export const PresenceDeniedData = Type.Object(
  {
    challengeId: prefixedId('chl'),
    actionHashHex: HashHex,
    subject: Type.Union([Subject, Type.Null()]),
    decision: Type.Union(DENIALS.map((d) => Type.Literal(d))),
    reason: Type.String(),
  },
  { $id: 'PresenceDeniedData' },
);

export const CredentialEventData = Type.Object({ credential: Credential }, { $id: 'CredentialEventData' });

export const QuotaThresholdData = Type.Object(
  {
    meter: Type.Literal('challenges.created'),
    thresholdPercent: Type.Union([Type.Literal(80), Type.Literal(100)]),
    quota: Type.Integer({ minimum: 0 }),
    used: Type.Integer({ minimum: 0 }),
    period: Type.String({ description: 'YYYY-MM (UTC)' }),
    periodStart: IsoTime,
    resetsAt: IsoTime,
  },
  { $id: 'QuotaThresholdData' },
);

export const WebhookTestData = Type.Object(
  { endpointId: prefixedId('whe'), message: Type.String() },
  { $id: 'WebhookTestData' },
);

/** Every event type an endpoint can subscribe to, with the schema of its `data`. */
export const WEBHOOK_EVENTS = {
  'receipt.created': ReceiptCreatedData,
  'presence.denied': PresenceDeniedData,
  'credential.registered': CredentialEventData,
  'credential.revoked': CredentialEventData,
  'invoice.finalized': Invoice,
  'usage.quota_threshold': QuotaThresholdData,
  'approval.approved': Approval,
  'approval.rejected': Approval,
  'approval.expired': Approval,
  'approval.cancelled': Approval,
  'audit.event': AuditEvent,
} as const satisfies Record<string, TSchema>;

/** Sent only by `POST /v1/webhooks/endpoints/{endpointId}/test`; cannot be subscribed to. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

export type WebhookEventType = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as WebhookEventType[];

/** The `data` of each event type, including the test event. */
export type WebhookEventDataMap = { [K in WebhookEventType]: Static<(typeof WEBHOOK_EVENTS)[K]> } & {
  [WEBHOOK_TEST_EVENT]: Static<typeof WebhookTestData>;
};
export type WebhookEventData<K extends keyof WebhookEventDataMap> = WebhookEventDataMap[K];

/** The body of a delivery of type `K`: `{id, type, createdAt, data}` (`id` is the event id). */
export interface WebhookEventOf<K extends keyof WebhookEventDataMap> {
  id: string;
  type: K;
  createdAt: string;
  data: WebhookEventDataMap[K];
}

export type ReceiptCreatedEvent = WebhookEventOf<'receipt.created'>;
export type PresenceDeniedEvent = WebhookEventOf<'presence.denied'>;
export type CredentialRegisteredEvent = WebhookEventOf<'credential.registered'>;
export type CredentialRevokedEvent = WebhookEventOf<'credential.revoked'>;
export type InvoiceFinalizedEvent = WebhookEventOf<'invoice.finalized'>;
export type UsageQuotaThresholdEvent = WebhookEventOf<'usage.quota_threshold'>;
export type ApprovalApprovedEvent = WebhookEventOf<'approval.approved'>;
export type ApprovalRejectedEvent = WebhookEventOf<'approval.rejected'>;
export type ApprovalExpiredEvent = WebhookEventOf<'approval.expired'>;
export type ApprovalCancelledEvent = WebhookEventOf<'approval.cancelled'>;
export type AuditEventEvent = WebhookEventOf<'audit.event'>;
export type WebhookTestEvent = WebhookEventOf<typeof WEBHOOK_TEST_EVENT>;

/** Any event a Presence endpoint can receive, discriminated by `type`. */
export type WebhookEvent = { [K in keyof WebhookEventDataMap]: WebhookEventOf<K> }[keyof WebhookEventDataMap];

/** The schema of a whole delivery body of one type (for the OpenAPI `webhooks` section). */
export function webhookEventSchema(type: string, data: TSchema): TObject {
  const typeSchema: TLiteral<string> = Type.Literal(type);
  return Type.Object(
    {
      id: prefixedId('evt'),
      type: typeSchema,
      createdAt: IsoTime,
      data,
    },
    { description: `The body of a ${type} delivery` },
  );
}

/** Every event type, the test event included, with its data schema. */
export function allWebhookEvents(): [string, TSchema][] {
  return [...Object.entries(WEBHOOK_EVENTS), [WEBHOOK_TEST_EVENT, WebhookTestData]];
}
