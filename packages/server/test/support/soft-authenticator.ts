/**
 * A software WebAuthn authenticator for tests: real P-256 keys, real CBOR (the library's
 * encoder), real signatures. It produces the same JSON a browser hands to the caller.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');
const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest();

export interface AssertOptions {
  challenge: string;
  origin?: string;
  rpId?: string;
  type?: string;
  flags?: number;
  signCount?: number;
  crossOrigin?: boolean;
  userHandle?: string | null;
}

export const FLAG = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 } as const;

export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly cose: Uint8Array;
  signCount = 0;

  constructor(
    readonly rpId: string,
    readonly origin: string,
  ) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    const map = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    this.cose = isoCBOR.encode(map);
  }

  get id(): string {
    return b64u(this.credentialId);
  }

  /** A `none`-attestation registration response, as navigator.credentials.create returns it. */
  register(options: { challenge: string; flags?: number; origin?: string }) {
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.create',
        challenge: options.challenge,
        origin: options.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([options.flags ?? FLAG.UP | FLAG.UV | FLAG.AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.cose,
    ]);
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]) as never,
    );
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** An assertion (AuthenticationResponseJSON) over the given challenge. */
  assert(options: AssertOptions) {
    const clientData: Record<string, unknown> = {
      type: options.type ?? 'webauthn.get',
      challenge: options.challenge,
      origin: options.origin ?? this.origin,
      crossOrigin: options.crossOrigin ?? false,
    };
    const clientDataJSON = Buffer.from(JSON.stringify(clientData));
    if (options.signCount !== undefined) this.signCount = options.signCount;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.signCount);
    const authData = Buffer.concat([
      sha256(options.rpId ?? this.rpId),
      Buffer.from([options.flags ?? FLAG.UP | FLAG.UV]),
      counter,
    ]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.privateKey);
    const response: Record<string, unknown> = {
      clientDataJSON: b64u(clientDataJSON),
      authenticatorData: b64u(authData),
      signature: b64u(signature),
    };
    if (options.userHandle !== undefined && options.userHandle !== null)
      response.userHandle = options.userHandle;
    return { id: this.id, rawId: this.id, type: 'public-key', response, clientExtensionResults: {} };
  }
}
