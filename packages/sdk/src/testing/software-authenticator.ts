import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
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

/**
 * A software WebAuthn authenticator FOR TESTS AND EXAMPLES: a real P-256 key, a `none`
 * attestation, real signatures, and exactly the JSON a browser's `navigator.credentials`
 * (via @simplewebauthn/browser) hands to your backend. It reports user presence and user
 * verification because you tell it to; a real authenticator does so only after the person did
 * both. Never use it to approve real actions.
 */
export class SoftwareAuthenticator {
  readonly rpId: string;
  readonly origin: string;
  readonly credentialId = randomBytes(32);
  readonly coseKey: Uint8Array;
  readonly publicKey: KeyObject;
  signCount = 0;
  readonly #privateKey: KeyObject;

  constructor(options: { rpId: string; origin: string }) {
    this.rpId = options.rpId;
    this.origin = options.origin;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    this.publicKey = publicKey;
    const { x, y } = publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    this.coseKey = encodeCBOR(
      new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, new Uint8Array(Buffer.from(x ?? '', 'base64url'))],
        [-3, new Uint8Array(Buffer.from(y ?? '', 'base64url'))],
      ]),
    );
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
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.#privateKey);
    const response: {
      clientDataJSON: string;
      authenticatorData: string;
      signature: string;
      userHandle?: string;
    } = {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(authData),
      signature: b64u(signature),
    };
    if (overrides.userHandle !== undefined && overrides.userHandle !== null)
      response.userHandle = overrides.userHandle;
    return { id: this.id, rawId: this.id, type: 'public-key', response, clientExtensionResults: {} };
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
