/**
 * FROZEN: the `presence.receipt.v1` format (ADR 0008, docs/evidence.md §10). Receipts in this
 * format are evidence customers keep for years; their bytes and the rules that check them must
 * verify in every future build. Never edit this schema or the definitions below, not even to
 * "fix" a pattern: a new field, a new rule or a relaxed one is a new version (`ReceiptV2` in its
 * own file, added to `Receipt` in receipts.ts, with its own verifier in the SDK). The committed
 * fixtures in packages/sdk/test/fixtures/receipt-v1/ are real v1 receipts and packs that the tests
 * keep verifying.
 *
 * The field definitions are copied here rather than shared with common.ts so that a change to the
 * API's wire types can never change what v1 accepts.
 */
import { Type, type Static } from '@sinclair/typebox';

export const RECEIPT_V1 = 'presence.receipt.v1';

const HashHex = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lowercase hex SHA-256' });
const Base64Url = Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength: 65536 });
const IsoTime = Type.String({ format: 'date-time' });
const id = (prefix: string) =>
  Type.String({ pattern: `^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`, description: `${prefix}_ id` });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/**
 * Everything needed to re-verify one presence decision offline. Every field is always present
 * (null when absent), so the RFC 8785 canonical form, which is hashed and signed, is unambiguous.
 */
export const ReceiptV1 = Type.Object(
  {
    version: Type.Literal(RECEIPT_V1),
    receiptId: id('rct'),
    tenantId: id('ten'),
    challengeId: id('chl'),
    decision: Type.Literal('PRESENCE_VERIFIED'),
    actionHashHex: HashHex,
    purpose: Nullable(Type.String()),
    challengeNonceB64Url: Base64Url,
    challengeB64Url: Base64Url,
    challengeCreatedAt: IsoTime,
    challengeExpiresAt: IsoTime,
    verifiedAt: IsoTime,
    issuedAt: IsoTime,
    rpId: Type.String(),
    origin: Type.String(),
    topOrigin: Nullable(Type.String()),
    crossOrigin: Type.Boolean(),
    flags: Type.Object({ UP: Type.Boolean(), UV: Type.Boolean(), BE: Type.Boolean(), BS: Type.Boolean() }),
    signCount: Type.Integer({ minimum: 0 }),
    credentialId: Base64Url,
    credentialRef: id('cred'),
    credentialPublicKeyB64Url: Base64Url,
    credentialAlg: Type.Integer(),
    subject: Type.String(),
    authenticatorDataB64Url: Base64Url,
    clientDataJSONB64Url: Base64Url,
    signatureB64Url: Base64Url,
    userHandleB64Url: Nullable(Base64Url),
    policyId: id('pol'),
    policyVersion: Type.Integer({ minimum: 1 }),
    policyHashHex: HashHex,
  },
  { $id: 'Receipt', additionalProperties: false },
);
export type ReceiptV1 = Static<typeof ReceiptV1>;
