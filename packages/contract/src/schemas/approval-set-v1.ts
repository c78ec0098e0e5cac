/**
 * FROZEN: the `presence.approval-set.v1` format (docs/evidence.md). An approval set proves that at
 * least `required` distinct approvers, none of them the initiator, each approved the one exact
 * `action` with their own passkey: it lists their receipts (frozen v1, receipt-v1.ts), and the
 * service signs it like a receipt. Auditors keep these for years: never edit this schema; a new
 * field or rule is a new version in its own file, with its own verifier in the SDK.
 *
 * Signing: `approvalSetHashHex` = lowercase hex SHA-256 of the RFC 8785 canonical bytes of the
 * approval set; the service signature record `{alg: "Ed25519", kid, signatureB64Url}` is Ed25519
 * over those same canonical bytes, with the service key scheduled for `decidedAt` (as a receipt's
 * is for its `issuedAt`).
 *
 * Every field is always present except `initiator`, which is left out when the approval named none;
 * `title` is null when none was given. The field definitions are copied rather than shared with
 * common.ts so that a change to the API's wire types can never change what v1 accepts.
 */
import { Type, type Static } from '@sinclair/typebox';

export const APPROVAL_SET_V1 = 'presence.approval-set.v1';

const HashHex = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lowercase hex SHA-256' });
const IsoTime = Type.String({ format: 'date-time' });
const id = (prefix: string) =>
  Type.String({ pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`, description: `${prefix}_ id` });
const Subject = Type.String({ minLength: 1, maxLength: 256 });

export const ApprovalSetEntryV1 = Type.Object(
  {
    subject: Subject,
    receiptId: id('rct'),
    receiptHashHex: HashHex,
  },
  { additionalProperties: false },
);

export const ApprovalSetV1 = Type.Object(
  {
    version: Type.Literal(APPROVAL_SET_V1),
    approvalId: id('apr'),
    tenantId: id('ten'),
    actionHashHex: HashHex,
    action: Type.Object({}, { additionalProperties: true, description: 'the exact action, as approved' }),
    title: Type.Union([Type.String({ maxLength: 120 }), Type.Null()]),
    required: Type.Integer({ minimum: 1, maximum: 20 }),
    approvers: Type.Array(Subject, { minItems: 1, maxItems: 20 }),
    initiator: Type.Optional(Subject),
    approvals: Type.Array(ApprovalSetEntryV1, { minItems: 1, maxItems: 20 }),
    createdAt: IsoTime,
    decidedAt: IsoTime,
  },
  { $id: 'ApprovalSet', additionalProperties: false },
);
export type ApprovalSetV1 = Static<typeof ApprovalSetV1>;
