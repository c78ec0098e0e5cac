import { Type, type Static } from '@sinclair/typebox';
import { Base64Url, HashHex, IsoTime, prefixedId } from './common.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

/**
 * The receipt: everything needed to re-verify one presence decision offline. Its hash is
 * SHA-256 over the RFC 8785 canonical bytes of this object; the service signs those same bytes.
 * Every field is always present (null when absent) so the canonical form is unambiguous.
 */
export const Receipt = Type.Object(
  {
    version: Type.Literal('presence.receipt.v1'),
    receiptId: prefixedId('rct'),
    tenantId: prefixedId('ten'),
    challengeId: prefixedId('chl'),
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
    credentialRef: prefixedId('cred'),
    credentialPublicKeyB64Url: Base64Url,
    credentialAlg: Type.Integer(),
    subject: Type.String(),
    authenticatorDataB64Url: Base64Url,
    clientDataJSONB64Url: Base64Url,
    signatureB64Url: Base64Url,
    userHandleB64Url: Nullable(Base64Url),
    policyId: prefixedId('pol'),
    policyVersion: Type.Integer({ minimum: 1 }),
    policyHashHex: HashHex,
  },
  { $id: 'Receipt', additionalProperties: false },
);
export type Receipt = Static<typeof Receipt>;

export const ServiceSignature = Type.Object(
  {
    alg: Type.Literal('Ed25519'),
    kid: Type.String(),
    signatureB64Url: Base64Url,
  },
  { $id: 'ServiceSignature' },
);
export type ServiceSignature = Static<typeof ServiceSignature>;

export const SignedReceipt = Type.Object(
  {
    receipt: Receipt,
    receiptHashHex: HashHex,
    signature: ServiceSignature,
  },
  { $id: 'SignedReceipt' },
);
export type SignedReceipt = Static<typeof SignedReceipt>;

export const ReceiptParams = Type.Object({ receiptId: prefixedId('rct') });

export const VerifyReceiptBody = Type.Union([
  Type.Object({
    receipt: Type.Object({}, { additionalProperties: true }),
    receiptHashHex: Type.Optional(Type.String({ maxLength: 128 })),
    signature: Type.Optional(Type.Object({}, { additionalProperties: true })),
  }),
  Type.Object({ receiptId: prefixedId('rct'), receiptHashHex: HashHex }, { additionalProperties: false }),
]);

export const ReceiptCheckNames = [
  'schema',
  'hash',
  'serviceSignature',
  'serviceKeyValid',
  'challengeBinding',
  'rpIdHash',
  'clientData',
  'flags',
  'webauthnSignature',
  'stored',
] as const;
export type ReceiptCheckName = (typeof ReceiptCheckNames)[number];

export const ReceiptCheck = Type.Object(
  { ok: Type.Boolean(), detail: Type.String() },
  { $id: 'ReceiptCheck' },
);
export const ReceiptVerification = Type.Object(
  {
    valid: Type.Boolean(),
    receiptId: Type.Union([Type.String(), Type.Null()]),
    receiptHashHex: Type.Union([Type.String(), Type.Null()]),
    checks: Type.Record(Type.String(), ReceiptCheck),
  },
  { $id: 'ReceiptVerification' },
);
export type ReceiptVerification = Static<typeof ReceiptVerification>;

export const ServiceKey = Type.Object(
  {
    kid: Type.String(),
    alg: Type.Literal('Ed25519'),
    publicKeyB64Url: Base64Url,
    publicKeyPem: Type.String(),
    notBefore: IsoTime,
    notAfter: Type.Union([IsoTime, Type.Null()]),
    status: Type.Union([Type.Literal('active'), Type.Literal('retired')]),
  },
  { $id: 'ServiceKey' },
);
export type ServiceKey = Static<typeof ServiceKey>;
export const ServiceKeySet = Type.Object({ keys: Type.Array(ServiceKey) }, { $id: 'ServiceKeySet' });
