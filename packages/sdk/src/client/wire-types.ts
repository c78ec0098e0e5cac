/**
 * The wire shapes of the Presence API, as TypeScript types only, each under its own name (an
 * editor shows `ChallengeCreated`, not its structure). They come from the TypeBox schemas of the
 * contract through `import type`, so no schema code reaches a browser bundle. Object shapes are
 * interfaces on purpose: TypeScript never inlines an interface into inferred or emitted types.
 */
/* eslint-disable @typescript-eslint/no-empty-object-type -- named interfaces over the schemas' static types */
import type * as C from '#contract';
import type { Static } from '@sinclair/typebox';

export type {
  Decision,
  Denial,
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
  ApprovalApprovedEvent,
  ApprovalRejectedEvent,
  ApprovalExpiredEvent,
  ApprovalCancelledEvent,
  ApprovalStatus,
  ApprovalSetV1,
} from '#contract';

export interface ApiKey extends Static<typeof C.ApiKey> {}
export interface ChallengeView extends Static<typeof C.ChallengeView> {}
export interface CreateChallengeBody extends Static<typeof C.CreateChallengeBody> {}
export interface CreateKeyBody extends Static<typeof C.CreateKeyBody> {}
export interface CreateWebhookEndpointBody extends Static<typeof C.CreateWebhookEndpointBody> {}
export interface Credential extends Static<typeof C.Credential> {}
export interface ListCredentialsQuery extends Static<typeof C.ListCredentialsQuery> {}
export interface ListWebhookDeliveriesQuery extends Static<typeof C.ListWebhookDeliveriesQuery> {}
export interface PolicyBody extends Static<typeof C.PolicyBody> {}
export interface PolicyVersion extends Static<typeof C.PolicyVersion> {}
export interface Receipt extends Static<typeof C.Receipt> {}
export interface ReceiptVerification extends Static<typeof C.ReceiptVerification> {}
export interface RegisterCredentialBody extends Static<typeof C.RegisterCredentialBody> {}
export interface RegistrationOptionsBody extends Static<typeof C.RegistrationOptionsBody> {}
export interface ServiceKey extends Static<typeof C.ServiceKey> {}
export interface ServiceSignature extends Static<typeof C.ServiceSignature> {}
export interface SignedReceipt extends Static<typeof C.SignedReceipt> {}
export interface UpdateWebhookEndpointBody extends Static<typeof C.UpdateWebhookEndpointBody> {}
export interface VerifyBody extends Static<typeof C.VerifyBody> {}
export interface VerifyResult extends Static<typeof C.VerifyResult> {}
export interface WebhookDelivery extends Static<typeof C.WebhookDelivery> {}
export interface WebhookEndpoint extends Static<typeof C.WebhookEndpoint> {}
export interface ChallengeCreated extends Static<typeof C.ChallengeCreated> {}
export interface RegistrationOptions extends Static<typeof C.RegistrationOptions> {}
export interface CredentialCreated extends Static<typeof C.CredentialCreated> {}
export interface KeyCreated extends Static<typeof C.KeyCreated> {}
export interface RotateKeyBody extends Static<typeof C.RotateKeyBody> {}
export interface ServiceKeySet extends Static<typeof C.ServiceKeySet> {}
export interface AuthenticationResponseJSON extends Static<typeof C.AuthenticationResponseJSON> {}
export interface RegistrationResponseJSON extends Static<typeof C.RegistrationResponseJSON> {}
export interface WebhookEndpointWithSecret extends Static<typeof C.WebhookEndpointWithSecret> {}
export interface RotateWebhookSecretBody extends Static<typeof C.RotateWebhookSecretBody> {}
export interface WebhookAttempt extends Static<typeof C.WebhookAttempt> {}
export interface WebhookDeliveryEnvelope extends Static<typeof C.WebhookDeliveryEnvelope> {}
export interface Problem extends Static<typeof C.Problem> {}
export interface ListReceiptsQuery extends Static<typeof C.ListReceiptsQuery> {}
export interface ReceiptListItem extends Static<typeof C.ReceiptListItem> {}
export interface ExportReceiptsQuery extends Static<typeof C.ExportReceiptsQuery> {}
export interface ExportManifest extends Static<typeof C.ExportManifest> {}
export interface UsageQuery extends Static<typeof C.UsageQuery> {}
export interface UsageReport extends Static<typeof C.UsageReport> {}
export interface Invoice extends Static<typeof C.Invoice> {}
export interface ListInvoicesQuery extends Static<typeof C.ListInvoicesQuery> {}
export interface ListWebhookEndpointsQuery extends Static<typeof C.ListWebhookEndpointsQuery> {}
export interface RecoverWebhookBody extends Static<typeof C.RecoverWebhookBody> {}
export interface RecoverWebhookResult extends Static<typeof C.RecoverWebhookResult> {}
export interface PolicyRules extends Static<typeof C.PolicyRules> {}
export interface InvoiceLine extends Static<typeof C.InvoiceLine> {}
export interface CreateApprovalBody extends Static<typeof C.CreateApprovalBody> {}
export interface Approval extends Static<typeof C.Approval> {}
export interface ApprovalCreated extends Static<typeof C.ApprovalCreated> {}
export interface SignedApprovalSet extends Static<typeof C.SignedApprovalSet> {}
export interface EnrollmentLinkBody extends Static<typeof C.EnrollmentLinkBody> {}
export interface EnrollmentLink extends Static<typeof C.EnrollmentLink> {}
export interface ListApprovalsQuery extends Static<typeof C.ListApprovalsQuery> {}

export interface WebhookEndpointEnvelope {
  endpoint: WebhookEndpoint;
}
export interface KeyRotated extends KeyCreated {
  previous: ApiKey;
}
export type VerifyReceiptBody = Static<typeof C.VerifyReceiptBody>;
export type UsageMeter = C.Meter;
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
