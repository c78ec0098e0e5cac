/**
 * A software authenticator like `SoftAuthenticator`, but with the credential key type chosen:
 * ES256 (P-256), EdDSA (Ed25519) or RS256 (RSA 2048), the three algorithms the default policy
 * allows. The cross-language vectors carry one receipt per algorithm, so each language's COSE
 * decoding and signature check is exercised on real service output. `none` attestation only.
 */
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCBOR, type CBORType } from '@levischuck/tiny-cbor';

export type KeyedAlgorithm = 'ES256' | 'EdDSA' | 'RS256';

const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();
const raw = (text: string | undefined) => new Uint8Array(Buffer.from(text ?? '', 'base64url'));
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

function keyPair(alg: KeyedAlgorithm): { privateKey: KeyObject; cose: Map<number, CBORType> } {
  if (alg === 'ES256') {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const { x, y } = publicKey.export({ format: 'jwk' });
    return {
      privateKey,
      cose: new Map<number, CBORType>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, raw(x)],
        [-3, raw(y)],
      ]),
    };
  }
  if (alg === 'EdDSA') {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const { x } = publicKey.export({ format: 'jwk' });
    return {
      privateKey,
      cose: new Map<number, CBORType>([
        [1, 1],
        [3, -8],
        [-1, 6],
        [-2, raw(x)],
      ]),
    };
  }
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const { n, e } = publicKey.export({ format: 'jwk' });
  return {
    privateKey,
    cose: new Map<number, CBORType>([
      [1, 3],
      [3, -257],
      [-1, raw(n)],
      [-2, raw(e)],
    ]),
  };
}

export class KeyedAuthenticator {
  readonly credentialId = randomBytes(32);
  readonly #privateKey: KeyObject;
  readonly #coseKey: Uint8Array;
  #signCount = 0;

  constructor(
    readonly algorithm: KeyedAlgorithm,
    readonly rpId: string,
    readonly origin: string,
  ) {
    const pair = keyPair(algorithm);
    this.#privateKey = pair.privateKey;
    this.#coseKey = encodeCBOR(pair.cose);
  }

  register(options: { challenge: string }) {
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([UP | UV | AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.#coseKey,
    ]);
    const attestation = new Map<string, CBORType>([
      ['fmt', 'none'],
      ['attStmt', new Map<string, CBORType>()],
      ['authData', new Uint8Array(authData)],
    ]);
    const id = b64u(this.credentialId);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(encodeCBOR(attestation)),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  assert(options: { challenge: string }) {
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge);
    this.#signCount += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.#signCount);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([UP | UV]), counter]);
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    const digest = this.algorithm === 'EdDSA' ? null : 'sha256';
    const signature = sign(digest, signed, this.#privateKey);
    const id = b64u(this.credentialId);
    return {
      id,
      rawId: id,
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authData),
        signature: b64u(signature),
      },
      clientExtensionResults: {},
    };
  }

  /** Signs `authenticatorData || SHA-256(clientDataJSON)` as an assertion would (for tampered vectors). */
  signAssertion(authData: Uint8Array, clientDataJSON: Uint8Array): string {
    const signed = Buffer.concat([authData, sha256(clientDataJSON)]);
    return b64u(sign(this.algorithm === 'EdDSA' ? null : 'sha256', signed, this.#privateKey));
  }

  #clientData(type: string, challenge: string): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
