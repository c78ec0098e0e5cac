// A SOFTWARE AUTHENTICATOR, FOR THIS EXAMPLE ONLY. In production the person approves on their
// own authenticator (a passkey, a security key) through the browser: `startRegistration` and
// `startAuthentication` of @simplewebauthn/browser. This class produces the same JSON the browser
// hands to your backend (RegistrationResponseJSON, AuthenticationResponseJSON), with a real
// P-256 key, so the example can run end to end without a browser. It always reports user
// presence and user verification: a real authenticator only does so after the person did both.
import { Buffer } from 'node:buffer';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const b64u = (bytes) => Buffer.from(bytes).toString('base64url');
const sha256 = (data) => createHash('sha256').update(data).digest();
const FLAGS = { UP: 0x01, UV: 0x04, AT: 0x40 };

/** Just enough CBOR (RFC 8949) for a COSE key and a `none` attestation object. */
function cbor(value) {
  const head = (major, n) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 256) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string')
    return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [k, v] of value) parts.push(cbor(k), cbor(v));
    return Buffer.concat(parts);
  }
  throw new TypeError('unsupported CBOR value');
}

export class SoftwareAuthenticator {
  constructor({ rpId, origin }) {
    this.rpId = rpId;
    this.origin = origin;
    this.credentialId = randomBytes(32);
    this.signCount = 0;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.privateKey = privateKey;
    const { x, y } = publicKey.export({ format: 'jwk' });
    // COSE_Key: kty EC2 (2), alg ES256 (-7), crv P-256 (1), x, y.
    this.coseKey = cbor(
      new Map([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(x, 'base64url')],
        [-3, Buffer.from(y, 'base64url')],
      ]),
    );
  }

  /** What `startRegistration({ optionsJSON })` returns in a browser. */
  register(optionsJSON) {
    const clientDataJSON = this.#clientData('webauthn.create', optionsJSON.challenge);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([FLAGS.UP | FLAGS.UV | FLAGS.AT]),
      Buffer.alloc(4),
      Buffer.alloc(16),
      idLength,
      this.credentialId,
      this.coseKey,
    ]);
    const attestationObject = cbor(
      new Map([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    return {
      id: b64u(this.credentialId),
      rawId: b64u(this.credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        attestationObject: b64u(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    };
  }

  /** What `startAuthentication({ optionsJSON })` returns in a browser. */
  authenticate(optionsJSON) {
    const clientDataJSON = this.#clientData('webauthn.get', optionsJSON.challenge);
    this.signCount += 1;
    const counter = Buffer.alloc(4);
    counter.writeUInt32BE(this.signCount);
    const authenticatorData = Buffer.concat([sha256(this.rpId), Buffer.from([FLAGS.UP | FLAGS.UV]), counter]);
    const signature = sign(
      'sha256',
      Buffer.concat([authenticatorData, sha256(clientDataJSON)]),
      this.privateKey,
    );
    return {
      id: b64u(this.credentialId),
      rawId: b64u(this.credentialId),
      type: 'public-key',
      response: {
        clientDataJSON: b64u(clientDataJSON),
        authenticatorData: b64u(authenticatorData),
        signature: b64u(signature),
      },
      clientExtensionResults: {},
    };
  }

  #clientData(type, challenge) {
    return Buffer.from(JSON.stringify({ type, challenge, origin: this.origin, crossOrigin: false }));
  }
}
