import { constants, createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';

/** Authenticator data flags (WebAuthn §6.1). */
export const AUTHENTICATOR_FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 } as const;

/** What a test may change about one ceremony, to exercise a denial. */
export interface CeremonyOverrides {
  flags?: number;
  /** Sets the counter for this and later assertions (by default each assertion adds one). */
  signCount?: number;
  origin?: string;
  rpId?: string;
  type?: string;
  crossOrigin?: boolean;
  topOrigin?: string;
  userHandle?: string | null;
  /** Exact clientDataJSON bytes to sign instead of the ones built from the fields above. */
  clientDataJSON?: Uint8Array;
  /** Assertions: bytes appended after signCount as extension outputs (the ED flag is set unless `flags` is given). */
  extensionData?: Uint8Array;
}

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const raw = (text: string | undefined) => new Uint8Array(Buffer.from(text ?? '', 'base64url'));

/**
 * The credential key types a software authenticator can hold: every COSE algorithm the service
 * accepts (SUPPORTED_ALGORITHMS); the default policy allows ES256, EdDSA and RS256.
 */
export type SoftwareKeyAlgorithm =
  'ES256' | 'ES384' | 'ES512' | 'EdDSA' | 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512';

interface KeySpec {
  /** COSE alg (RFC 9053, RFC 8812). */
  alg: number;
  /** Digest of the signature; null for EdDSA, which hashes internally. */
  hash: 'sha256' | 'sha384' | 'sha512' | null;
  /** EC2 keys: the JWK curve and its COSE crv. */
  curve?: { jwk: 'P-256' | 'P-384' | 'P-521'; crv: number };
  /** RSA keys: RSASSA-PSS with a salt as long as the hash (RFC 8230) instead of PKCS #1 v1.5. */
  pss?: boolean;
}

const KEY_SPECS: Record<SoftwareKeyAlgorithm, KeySpec> = {
  ES256: { alg: -7, hash: 'sha256', curve: { jwk: 'P-256', crv: 1 } },
  ES384: { alg: -35, hash: 'sha384', curve: { jwk: 'P-384', crv: 2 } },
  ES512: { alg: -36, hash: 'sha512', curve: { jwk: 'P-521', crv: 3 } },
  EdDSA: { alg: -8, hash: null },
  RS256: { alg: -257, hash: 'sha256' },
  RS384: { alg: -258, hash: 'sha384' },
  RS512: { alg: -259, hash: 'sha512' },
  PS256: { alg: -37, hash: 'sha256', pss: true },
  PS384: { alg: -38, hash: 'sha384', pss: true },
  PS512: { alg: -39, hash: 'sha512', pss: true },
};

const HASH_BYTES = { sha256: 32, sha384: 48, sha512: 64 } as const;

/** A COSE_Key (RFC 9052 §7): kty (label 1), alg (label 3), then the key type's own parameters. */
const coseKey = (kty: number, alg: number, ...params: [number, CBORType][]) =>
  new Map<number, CBORType>([[1, kty], [3, alg], ...params]);

/** A fresh credential key pair of `algorithm` and its public key as a COSE_Key. */
function credentialKey(spec: KeySpec): {
  privateKey: KeyObject;
  publicKey: KeyObject;
  cose: Map<number, CBORType>;
} {
  if (spec.hash === null) {
    const pair = generateKeyPairSync('ed25519');
    const { x } = pair.publicKey.export({ format: 'jwk' });
    return { ...pair, cose: coseKey(1 /* OKP */, spec.alg, [-1, 6 /* Ed25519 */], [-2, raw(x)]) };
  }
  if (spec.curve === undefined) {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const { n, e } = pair.publicKey.export({ format: 'jwk' });
    return { ...pair, cose: coseKey(3 /* RSA */, spec.alg, [-1, raw(n)], [-2, raw(e)]) };
  }
  const pair = generateKeyPairSync('ec', { namedCurve: spec.curve.jwk });
  const { x, y } = pair.publicKey.export({ format: 'jwk' });
  return {
    ...pair,
    cose: coseKey(2 /* EC2 */, spec.alg, [-1, spec.curve.crv], [-2, raw(x)], [-3, raw(y)]),
  };
}

/**
 * A software WebAuthn authenticator FOR TESTS AND EXAMPLES: a real key (P-256, or another
 * curve, Ed25519 or RSA 2048 when `algorithm` says so), a `none` attestation, real signatures, and exactly the JSON a browser's `navigator.credentials`
 * (via @simplewebauthn/browser) hands to your backend. It reports user presence and user
 * verification because you tell it to; a real authenticator does so only after the person did
 * both. Never use it to approve real actions.
 */
export class SoftwareAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  readonly algorithm: SoftwareKeyAlgorithm;
  readonly credentialId = randomBytes(32);
  readonly coseKey: Uint8Array;
  readonly publicKey: KeyObject;
  signCount = 0;
  readonly #privateKey: KeyObject;
  readonly #spec: KeySpec;

  /** `algorithm`: the credential key's type, ES256 (P-256) unless given. */
  constructor(options: { rpId: string; origin: string; algorithm?: SoftwareKeyAlgorithm }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    this.algorithm = options.algorithm ?? 'ES256';
    this.#spec = KEY_SPECS[this.algorithm];
    const { privateKey, publicKey, cose } = credentialKey(this.#spec);
    this.#privateKey = privateKey;
    this.publicKey = publicKey;
    this.coseKey = encodeCBOR(cose);
  }

  /** The credential id, base64url. */
  get id(): string {
    return b64u(this.credentialId);
  }

  /** RegistrationResponseJSON for creation options (only `challenge` is read). */
  register(options: { challenge: string }, overrides: CeremonyOverrides = {}) {
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge, overrides);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const { UP, UV, AT } = AUTHENTICATOR_FLAGS;
    const authData = Buffer.concat([
      sha256(overrides.rpId ?? this.rpId),
      Buffer.from([overrides.flags ?? UP | UV | AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.coseKey,
    ]);
    const attestation = new Map<string, CBORType>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, CBORType>()],
      ['authData', new Uint8Array(authData)],
    ]);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(encodeCBOR(attestation)),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** AuthenticationResponseJSON for request options (only `challenge` is read). */
  authenticate(options: { challenge: string }, overrides: CeremonyOverrides = {}) {
    const clientDataJSON = overrides.clientDataJSON
      ? Buffer.from(overrides.clientDataJSON)
      : this.#clientData('webauthn.get', options.challenge, overrides);
    this.signCount = overrides.signCount ?? this.signCount + 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.signCount);
    const { UP, UV, ED } = AUTHENTICATOR_FLAGS;
    const extensions = overrides.extensionData ? Buffer.from(overrides.extensionData) : Buffer.alloc(0);
    const authData = Buffer.concat([
      sha256(overrides.rpId ?? this.rpId),
      Buffer.from([overrides.flags ?? UP | UV | (extensions.length > 0 ? ED : 0)]),
      counter,
      extensions,
    ]);
    const response: {
      clientDataJSON: string;
      authenticatorData: string;
      signature: string;
      userHandle?: string;
    } = {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(authData),
      signature: this.signAssertion(authData, clientDataJSON),
    };
    if (overrides.userHandle !== undefined && overrides.userHandle !== null)
      response.userHandle = overrides.userHandle;
    return { id: this.id, rawId: this.id, type: 'public-key', response, clientExtensionResults: {} };
  }

  /**
   * The assertion signature over `authenticatorData || SHA-256(clientDataJSON)` with the credential
   * key, base64url: for hand-made assertions (other flags, tampered data) that must still verify.
   */
  signAssertion(authData: Uint8Array, clientDataJSON: Uint8Array): string {
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const { hash, pss } = this.#spec;
    const key =
      pss === true && hash !== null
        ? { key: this.#privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: HASH_BYTES[hash] }
        : this.#privateKey;
    return b64u(sign(hash, signed, key));
  }

  #clientData(type: string, challenge: string, o: CeremonyOverrides): Buffer {
    const data: Record<string, unknown> = {
      type: o.type ?? type,
      challenge,
      origin: o.origin ?? this.origin,
      crossOrigin: o.crossOrigin ?? false,
    };
    if (o.topOrigin !== undefined) data.topOrigin = o.topOrigin;
    return Buffer.from(JSON.stringify(data));
  }
}
