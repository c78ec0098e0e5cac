import { Type } from '@sinclair/typebox';

/**
 * WebAuthn JSON shapes as browsers (and @simplewebauthn/browser) produce them. Fields are
 * checked for presence and size only: bytes that do not decode are a decision
 * (ASSERTION_MALFORMED), not a 400, so the verifier can record it.
 */
const Encoded = Type.String({ maxLength: 16384 });

export const AuthenticationResponseJSON = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1400 }),
    rawId: Type.String({ minLength: 1, maxLength: 1400 }),
    type: Type.String({ maxLength: 32 }),
    response: Type.Object({
      clientDataJSON: Encoded,
      authenticatorData: Encoded,
      signature: Encoded,
      userHandle: Type.Optional(Type.Union([Type.String({ maxLength: 1024 }), Type.Null()])),
    }),
    authenticatorAttachment: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
    clientExtensionResults: Type.Optional(Type.Object({})),
  },
  { $id: 'AuthenticationResponseJSON' },
);

export const RegistrationResponseJSON = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 1400 }),
    rawId: Type.String({ minLength: 1, maxLength: 1400 }),
    type: Type.String({ maxLength: 32 }),
    response: Type.Object({
      clientDataJSON: Encoded,
      attestationObject: Type.String({ maxLength: 262144 }),
      authenticatorData: Type.Optional(Type.String({ maxLength: 262144 })),
      transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 16 })),
      publicKeyAlgorithm: Type.Optional(Type.Integer()),
      publicKey: Type.Optional(Type.String({ maxLength: 16384 })),
    }),
    authenticatorAttachment: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
    clientExtensionResults: Type.Optional(Type.Object({})),
  },
  { $id: 'RegistrationResponseJSON' },
);

const Descriptor = Type.Object({
  id: Type.String(),
  type: Type.String(),
  transports: Type.Optional(Type.Array(Type.String())),
});

export const PublicKeyCredentialRequestOptionsJSON = Type.Object({
  challenge: Type.String(),
  timeout: Type.Optional(Type.Integer()),
  rpId: Type.Optional(Type.String()),
  allowCredentials: Type.Optional(Type.Array(Descriptor)),
  userVerification: Type.Optional(Type.String()),
  hints: Type.Optional(Type.Array(Type.String())),
});

export const PublicKeyCredentialCreationOptionsJSON = Type.Object({
  rp: Type.Object({ name: Type.String(), id: Type.Optional(Type.String()) }),
  user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }),
  challenge: Type.String(),
  pubKeyCredParams: Type.Array(Type.Object({ alg: Type.Integer(), type: Type.String() })),
  timeout: Type.Optional(Type.Integer()),
  excludeCredentials: Type.Optional(Type.Array(Descriptor)),
  authenticatorSelection: Type.Optional(
    Type.Object({
      authenticatorAttachment: Type.Optional(Type.String()),
      requireResidentKey: Type.Optional(Type.Boolean()),
      residentKey: Type.Optional(Type.String()),
      userVerification: Type.Optional(Type.String()),
    }),
  ),
  hints: Type.Optional(Type.Array(Type.String())),
  attestation: Type.Optional(Type.String()),
  extensions: Type.Optional(Type.Object({ credProps: Type.Optional(Type.Boolean()) })),
});
