import { Type, type Static } from '@sinclair/typebox';
import { Base64Url, HashHex, IsoTime, prefixedId } from './common.js';
import { ReceiptLogEntry } from './receipt-log.js';
import { ReceiptV1 } from './receipt-v1.js';

/**
 * A receipt of any version this build issues or verifies: today only the frozen v1 (ADR 0008).
 * Response schemas embed this, never a version's fields directly, so the envelopes around a
 * receipt can grow while every stored receipt keeps its exact bytes. A v2 makes this
 * `Type.Union([ReceiptV1, ReceiptV2], { $id: 'Receipt' })` and gives ReceiptV1 its own $id.
 */
export const Receipt = ReceiptV1;
export type Receipt = ReceiptV1;

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
    log: Type.Optional(ReceiptLogEntry),
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
    status: Type.Union([Type.Literal('active'), Type.Literal('next'), Type.Literal('retired')], {
      description:
        'active: signs now; next: published ahead of a scheduled switch (notBefore); retired: signs no more, evidence it signed within its validity stays valid',
    }),
    use: Type.Optional(
      Type.Union([Type.Literal('receipts'), Type.Literal('log')], {
        description:
          'absent or "receipts": signs receipts and packs; "log": signs receipt-log checkpoints only',
      }),
    ),
  },
  { $id: 'ServiceKey' },
);
export type ServiceKey = Static<typeof ServiceKey>;
export const ServiceKeySet = Type.Object({ keys: Type.Array(ServiceKey) }, { $id: 'ServiceKeySet' });
