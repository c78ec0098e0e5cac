import { Type, type Static } from '@sinclair/typebox';
import { Base64Url, Cursor, IsoTime, Limit, Subject, prefixedId } from './common.js';
import { PublicKeyCredentialCreationOptionsJSON, RegistrationResponseJSON } from './webauthn.js';

export const RegistrationOptionsBody = Type.Object(
  {
    subject: Subject,
    displayName: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { $id: 'RegistrationOptionsBody', additionalProperties: false },
);
export type RegistrationOptionsBody = Static<typeof RegistrationOptionsBody>;

export const RegistrationOptions = Type.Object(
  {
    registrationId: prefixedId('reg'),
    expiresAt: IsoTime,
    publicKey: PublicKeyCredentialCreationOptionsJSON,
  },
  { $id: 'RegistrationOptions' },
);

export const RegisterCredentialBody = Type.Object(
  { registrationId: Type.String({ minLength: 1, maxLength: 64 }), credential: RegistrationResponseJSON },
  { $id: 'RegisterCredentialBody', additionalProperties: false },
);
export type RegisterCredentialBody = Static<typeof RegisterCredentialBody>;

export const Credential = Type.Object(
  {
    credentialRef: prefixedId('cred', "the service's reference of this credential (cred_…)"),
    id: prefixedId('cred', 'alias of credentialRef, kept for compatibility'),
    credentialId: Type.String({
      ...Base64Url,
      description: 'the WebAuthn credential id (base64url), as the authenticator reports it',
    }),
    subject: Subject,
    aaguid: Type.String(),
    attestationFormat: Type.String(),
    algorithm: Type.Integer(),
    transports: Type.Array(Type.String()),
    backupEligible: Type.Boolean(),
    backedUp: Type.Boolean(),
    signCount: Type.Integer(),
    createdAt: IsoTime,
    lastUsedAt: Type.Union([IsoTime, Type.Null()]),
    revokedAt: Type.Union([IsoTime, Type.Null()]),
  },
  { $id: 'Credential' },
);
export type Credential = Static<typeof Credential>;

export const CredentialCreated = Type.Object({ credential: Credential }, { $id: 'CredentialCreated' });

export const ListCredentialsQuery = Type.Object(
  {
    subject: Type.Optional(Subject),
    includeRevoked: Type.Optional(Type.Boolean({ default: false })),
    limit: Type.Optional(Limit),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export type ListCredentialsQuery = Static<typeof ListCredentialsQuery>;

/** Either the credentialRef (`cred_…`) or the WebAuthn credential id (base64url). */
export const CredentialParams = Type.Object({
  credentialId: Type.String({
    minLength: 1,
    maxLength: 1400,
    pattern: '^[A-Za-z0-9_-]+$',
    description: 'the credentialRef (cred_…) or the WebAuthn credentialId (base64url)',
  }),
});
