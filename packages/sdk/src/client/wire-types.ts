/**
 * The wire shapes of the Presence API, as TypeScript types only. They come from the TypeBox
 * schemas of @presence/contract through `import type`, so no schema code reaches a browser
 * bundle.
 */
import type * as C from '#contract';
import type { Static } from '@sinclair/typebox';

export type {
  ApiKey,
  ChallengeView,
  CreateChallengeBody,
  CreateKeyBody,
  CreateWebhookEndpointBody,
  Credential,
  Decision,
  Denial,
  ListCredentialsQuery,
  ListWebhookDeliveriesQuery,
  PolicyBody,
  PolicyVersion,
  Receipt,
  ReceiptVerification,
  RegisterCredentialBody,
  RegistrationOptionsBody,
  ServiceKey,
  ServiceSignature,
  SignedReceipt,
  UpdateWebhookEndpointBody,
  VerifyBody,
  VerifyResult,
  WebhookDelivery,
  WebhookEndpoint,
  ErrorCode,
  Scope,
  WebhookEventType,
  WebhookEventDataMap,
  WebhookEventData,
  WebhookEventOf,
  WebhookEvent,
  ReceiptCreatedEvent,
  PresenceDeniedEvent,
  CredentialRegisteredEvent,
  CredentialRevokedEvent,
  InvoiceFinalizedEvent,
  UsageQuotaThresholdEvent,
  WebhookTestEvent,
} from '#contract';

export type ChallengeCreated = Static<typeof C.ChallengeCreated>;
export type RegistrationOptions = Static<typeof C.RegistrationOptions>;
export type CredentialCreated = Static<typeof C.CredentialCreated>;
export type KeyCreated = Static<typeof C.KeyCreated>;
export type KeyRotated = KeyCreated & { previous: C.ApiKey };
export type RotateKeyBody = Static<typeof C.RotateKeyBody>;
export type ServiceKeySet = Static<typeof C.ServiceKeySet>;
export type VerifyReceiptBody = Static<typeof C.VerifyReceiptBody>;
export type AuthenticationResponseJSON = Static<typeof C.AuthenticationResponseJSON>;
export type RegistrationResponseJSON = Static<typeof C.RegistrationResponseJSON>;
export type WebhookEndpointWithSecret = Static<typeof C.WebhookEndpointWithSecret>;
export type RotateWebhookSecretBody = Static<typeof C.RotateWebhookSecretBody>;
export type WebhookAttempt = Static<typeof C.WebhookAttempt>;
export type WebhookEndpointEnvelope = { endpoint: C.WebhookEndpoint };
export type WebhookDeliveryEnvelope = Static<typeof C.WebhookDeliveryEnvelope>;
/** An RFC 9457 problem document, as every non-2xx response carries it. */
export type Problem = Static<typeof C.Problem>;
export type PolicyRules = C.PolicyRules;
export type InvoiceLine = C.InvoiceLine;
export type MeterTotals = C.MeterTotals;

/** One page of a list: `nextCursor` is null on the last page. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export interface PageQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export type ListReceiptsQuery = C.ListReceiptsQuery;
/** One receipt of the listing (and one line of `receipts.ndjson` in an export pack). */
export type ReceiptListItem = C.ReceiptListItem;
export type ExportReceiptsQuery = C.ExportReceiptsQuery;
export type ExportManifest = C.ExportManifest;

export type UsageMeter = C.Meter;
export type UsageQuery = C.UsageQuery;
export type UsageReport = C.UsageReport;
export type Invoice = C.Invoice;
export type ListInvoicesQuery = Static<typeof C.ListInvoicesQuery>;

export type ListWebhookEndpointsQuery = Static<typeof C.ListWebhookEndpointsQuery>;
export type RecoverWebhookBody = Static<typeof C.RecoverWebhookBody>;
export type RecoverWebhookResult = Static<typeof C.RecoverWebhookResult>;
