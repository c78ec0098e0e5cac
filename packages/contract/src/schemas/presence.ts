import { Type, type Static } from '@sinclair/typebox';
import { DECISIONS } from '../decisions.js';
import { HashHex, IsoTime, Subject, prefixedId } from './common.js';
import { AuthenticationResponseJSON, PublicKeyCredentialRequestOptionsJSON } from './webauthn.js';

export const ChallengeId = prefixedId('chl');
export const ReceiptId = prefixedId('rct');
const DecisionSchema = Type.Union(DECISIONS.map((d) => Type.Literal(d)));
const ChallengeStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('verified'),
  Type.Literal('denied'),
  Type.Literal('expired'),
]);

export const CreateChallengeBody = Type.Object(
  {
    actionHashHex: HashHex,
    subject: Type.Optional(Subject),
    ttlSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 600 })),
    purpose: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { $id: 'CreateChallengeBody', additionalProperties: false },
);
export type CreateChallengeBody = Static<typeof CreateChallengeBody>;

export const ChallengeCreated = Type.Object(
  {
    challengeId: ChallengeId,
    actionHashHex: HashHex,
    status: Type.Literal('pending'),
    expiresAt: IsoTime,
    publicKey: PublicKeyCredentialRequestOptionsJSON,
  },
  { $id: 'ChallengeCreated' },
);

export const VerifyBody = Type.Object(
  { challengeId: Type.String({ minLength: 1, maxLength: 64 }), assertion: AuthenticationResponseJSON },
  { $id: 'VerifyBody', additionalProperties: false },
);
export type VerifyBody = Static<typeof VerifyBody>;

export const VerifyResult = Type.Object(
  {
    decision: DecisionSchema,
    challengeId: Type.String(),
    receiptId: Type.Optional(ReceiptId),
    receiptHashHex: Type.Optional(HashHex),
    reason: Type.Optional(Type.String()),
    /** For a denial: what to do about it (DENIAL_REMEDIES). */
    remedy: Type.Optional(Type.String()),
  },
  { $id: 'VerifyResult' },
);
export type VerifyResult = Static<typeof VerifyResult>;

export const ChallengeView = Type.Object(
  {
    challengeId: ChallengeId,
    actionHashHex: HashHex,
    status: ChallengeStatusSchema,
    subject: Type.Optional(Subject),
    purpose: Type.Optional(Type.String()),
    createdAt: IsoTime,
    expiresAt: IsoTime,
    usedAt: Type.Optional(IsoTime),
    decision: Type.Optional(DecisionSchema),
    reason: Type.Optional(Type.String()),
    receiptId: Type.Optional(ReceiptId),
  },
  { $id: 'ChallengeView' },
);
export type ChallengeView = Static<typeof ChallengeView>;

export const ChallengeParams = Type.Object({ challengeId: ChallengeId });
