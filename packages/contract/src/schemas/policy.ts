import { Type, type Static } from '@sinclair/typebox';
import { HashHex, IsoTime, prefixedId } from './common.js';

/** COSE algorithm identifiers the verifier supports. */
export const SUPPORTED_ALGORITHMS = [-7, -35, -36, -8, -257, -258, -259, -37, -38, -39] as const;

const Origin = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: '^(https?://[^/?#\\s]+|android:apk-key-hash:[A-Za-z0-9_-]+)$',
});
const RpId = Type.String({ minLength: 1, maxLength: 253, pattern: '^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$' });

export const PolicyBody = Type.Object(
  {
    rpId: RpId,
    rpName: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    allowedOrigins: Type.Array(Origin, { minItems: 1, maxItems: 32, uniqueItems: true }),
    allowCrossOrigin: Type.Optional(Type.Boolean({ default: false })),
    allowedTopOrigins: Type.Optional(Type.Array(Origin, { maxItems: 32, uniqueItems: true })),
    relatedOrigins: Type.Optional(
      Type.Array(Origin, {
        maxItems: 32,
        uniqueItems: true,
        description:
          'Allowed origins outside the rpId (WebAuthn related origin requests): each is also in allowedOrigins and listed in the {"origins": [...]} file the tenant publishes at https://<rpId>/.well-known/webauthn',
      }),
    ),
    challengeTtlSeconds: Type.Optional(Type.Integer({ minimum: 10, maximum: 600, default: 120 })),
    registrationTtlSeconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 900, default: 300 })),
    /**
     * Not a setting (always required); accepted so that the `rules` GET /v1/policy returns can be
     * sent back unchanged.
     */
    userVerification: Type.Optional(Type.Literal('required')),
    allowedAlgorithms: Type.Optional(
      Type.Array(Type.Union(SUPPORTED_ALGORITHMS.map((a) => Type.Literal(a))), {
        minItems: 1,
        uniqueItems: true,
      }),
    ),
    attestation: Type.Optional(
      Type.Object(
        {
          conveyance: Type.Union([Type.Literal('none'), Type.Literal('direct')], { default: 'none' }),
          allowedFormats: Type.Array(Type.String({ minLength: 1, maxLength: 32 }), {
            maxItems: 16,
            uniqueItems: true,
          }),
          aaguidAllowlist: Type.Array(
            Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' }),
            {
              maxItems: 1000,
              uniqueItems: true,
            },
          ),
        },
        { additionalProperties: false },
      ),
    ),
    counter: Type.Optional(
      Type.Union([Type.Literal('reject-regression'), Type.Literal('ignore')], {
        default: 'reject-regression',
      }),
    ),
    uniqueActions: Type.Optional(
      Type.Boolean({
        default: false,
        description:
          'true: a challenge or approval for an action hash that already has a PRESENCE_VERIFIED receipt or an approved approval answers 409 action_already_approved',
      }),
    ),
  },
  { $id: 'PolicyBody', additionalProperties: false },
);
export type PolicyBody = Static<typeof PolicyBody>;

/** A stored policy version: every field resolved, immutable once written. */
export const PolicyRules = Type.Object(
  {
    rpId: Type.String(),
    rpName: Type.String(),
    allowedOrigins: Type.Array(Type.String()),
    allowCrossOrigin: Type.Boolean(),
    allowedTopOrigins: Type.Array(Type.String()),
    /** Present only when the policy names related origins (versions written before it never do). */
    relatedOrigins: Type.Optional(Type.Array(Type.String())),
    challengeTtlSeconds: Type.Integer(),
    registrationTtlSeconds: Type.Integer(),
    userVerification: Type.Literal('required'),
    allowedAlgorithms: Type.Array(Type.Integer()),
    attestation: Type.Object({
      conveyance: Type.String(),
      allowedFormats: Type.Array(Type.String()),
      aaguidAllowlist: Type.Array(Type.String()),
    }),
    counter: Type.String(),
    /** Absent in versions written before the rule existed, and whenever it is off. */
    uniqueActions: Type.Optional(Type.Boolean()),
  },
  { $id: 'PolicyRules' },
);
export type PolicyRules = Static<typeof PolicyRules>;

export const PolicyVersion = Type.Object(
  {
    policyId: prefixedId('pol'),
    version: Type.Integer({ minimum: 1 }),
    policyHashHex: HashHex,
    createdAt: IsoTime,
    rules: PolicyRules,
  },
  { $id: 'PolicyVersion' },
);
export type PolicyVersion = Static<typeof PolicyVersion>;
