import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeCBOR } from '@levischuck/tiny-cbor';

/**
 * Credential public keys and WebAuthn signatures, one implementation for the service's online
 * check and the auditor's offline check: COSE_Key bytes → node:crypto KeyObject (the COSE alg must
 * fit the key type, curve and sizes), and the signature check every WebAuthn verification ends in.
 */

interface AlgorithmSpec {
  name: string;
  /** KeyObject.asymmetricKeyType values this algorithm accepts. */
  keyTypes: readonly string[];
  /** Digest for crypto.verify; null for EdDSA, which hashes internally. */
  hash: 'sha1' | 'sha256' | 'sha384' | 'sha512' | null;
  /** ECDSA only: the curve as KeyObject.asymmetricKeyDetails.namedCurve reports it. */
  curve?: string;
  padding?: 'pkcs1' | 'pss';
}

const ALGORITHMS: ReadonlyMap<number, AlgorithmSpec> = new Map<number, AlgorithmSpec>([
  [-7, { name: 'ES256', keyTypes: ['ec'], hash: 'sha256', curve: 'prime256v1' }],
  [-35, { name: 'ES384', keyTypes: ['ec'], hash: 'sha384', curve: 'secp384r1' }],
  [-36, { name: 'ES512', keyTypes: ['ec'], hash: 'sha512', curve: 'secp521r1' }],
  [-257, { name: 'RS256', keyTypes: ['rsa'], hash: 'sha256', padding: 'pkcs1' }],
  [-258, { name: 'RS384', keyTypes: ['rsa'], hash: 'sha384', padding: 'pkcs1' }],
  [-259, { name: 'RS512', keyTypes: ['rsa'], hash: 'sha512', padding: 'pkcs1' }],
  [-65535, { name: 'RS1', keyTypes: ['rsa'], hash: 'sha1', padding: 'pkcs1' }],
  [-37, { name: 'PS256', keyTypes: ['rsa'], hash: 'sha256', padding: 'pss' }],
  [-38, { name: 'PS384', keyTypes: ['rsa'], hash: 'sha384', padding: 'pss' }],
  [-39, { name: 'PS512', keyTypes: ['rsa'], hash: 'sha512', padding: 'pss' }],
  [-8, { name: 'EdDSA', keyTypes: ['ed25519', 'ed448'], hash: null }],
  [-19, { name: 'Ed25519', keyTypes: ['ed25519'], hash: null }],
  [-53, { name: 'Ed448', keyTypes: ['ed448'], hash: null }],
]);

/** Every COSE algorithm identifier verifySignature can check. */
export const VERIFIABLE_ALGORITHMS: readonly number[] = [...ALGORITHMS.keys()];

const HASH_BYTES = { sha1: 20, sha256: 32, sha384: 48, sha512: 64 } as const;
/** COSE_Key labels and values (RFC 9052 §7, RFC 9053 §7): kty, alg, crv, x, y, n, e. */
const LABEL = { kty: 1, alg: 3, crv: -1, x: -2, y: -3, n: -1, e: -2 } as const;
const KTY = { OKP: 1, EC2: 2, RSA: 3 } as const;
const EC_CURVES = new Map([
  [1, { jwk: 'P-256', bytes: 32, alg: -7 }],
  [2, { jwk: 'P-384', bytes: 48, alg: -35 }],
  [3, { jwk: 'P-521', bytes: 66, alg: -36 }],
]);
const OKP_CURVES = new Map([
  [6, { jwk: 'Ed25519', bytes: 32, algs: [-8, -19] }],
  [7, { jwk: 'Ed448', bytes: 57, algs: [-8, -53] }],
]);

export function algorithmName(alg: number): string {
  return ALGORITHMS.get(alg)?.name ?? `COSE ${alg}`;
}

export type SignatureCheck = { valid: true } | { valid: false; detail: string };

/**
 * Verifies `signature` over `data` with COSE algorithm `alg`. ECDSA signatures must be ASN.1 DER
 * (WebAuthn §6.5.5); raw r||s is rejected. RSASSA-PSS uses a salt as long as the hash (RFC 8230).
 * Never throws: an unusable key, algorithm or signature is `valid: false` with the reason.
 */
export function verifyCoseSignature(
  alg: number,
  key: KeyObject,
  data: Uint8Array,
  signature: Uint8Array,
): SignatureCheck {
  const spec = ALGORITHMS.get(alg);
  if (spec === undefined) return { valid: false, detail: `COSE algorithm ${alg} is not supported` };
  const mismatch = keyMismatch(spec, key);
  if (mismatch !== null) return { valid: false, detail: mismatch };
  try {
    if (verify(spec.hash, data, keyInput(spec, key), signature)) return { valid: true };
    return { valid: false, detail: `${spec.name} signature does not verify` };
  } catch (error) {
    return { valid: false, detail: `${spec.name} signature could not be checked: ${messageOf(error)}` };
  }
}

/**
 * The key argument for crypto.verify: the KeyObject itself, except for RSA-PSS, whose padding and
 * salt length are not node:crypto's defaults. ECDSA in DER and RSA with PKCS #1 v1.5 padding are
 * the documented defaults, so they need no options object, and one costs: Node 24 tells a key
 * wrapped in one apart from a KeyObject and from a CryptoKey by catching a thrown TypeError for
 * each, two exceptions per signature check, about 15 µs (Node 20 reads a symbol instead).
 * Tests hold both defaults to account: a raw r||s ECDSA signature and an RSA-PSS signature
 * checked as RS256 must both fail (public-key-cache.test.ts).
 */
function keyInput(spec: AlgorithmSpec, key: KeyObject) {
  if (spec.padding === 'pss' && spec.hash !== null) {
    return { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: HASH_BYTES[spec.hash] };
  }
  return key;
}

function keyMismatch(spec: AlgorithmSpec, key: KeyObject): string | null {
  const type = key.asymmetricKeyType;
  if (key.type !== 'public' || type === undefined || !spec.keyTypes.includes(type)) {
    return `${spec.name} needs a ${spec.keyTypes.join(' or ')} public key, not ${type ?? key.type}`;
  }
  const curve = spec.curve === undefined ? undefined : key.asymmetricKeyDetails?.namedCurve;
  if (curve !== spec.curve) return `${spec.name} needs curve ${spec.curve}, not ${curve}`;
  return null;
}

export interface CredentialKey {
  algorithm: number;
  keyObject: KeyObject;
}

export type KeyImport = { ok: true; key: CredentialKey } | { ok: false; detail: string };

/** COSE_Key bytes → KeyObject through a JWK; the COSE alg must fit the key type and curve. */
export function importCoseKey(bytes: Uint8Array): KeyImport {
  try {
    const coseKey: unknown = decodeCBOR(new Uint8Array(bytes));
    if (!(coseKey instanceof Map)) return { ok: false, detail: 'public key is not a COSE_Key map' };
    const alg: unknown = coseKey.get(LABEL.alg);
    if (typeof alg !== 'number' || !ALGORITHMS.has(alg)) {
      return { ok: false, detail: `COSE algorithm ${String(alg)} is not supported` };
    }
    const jwk = coseToJwk(coseKey, alg);
    if (typeof jwk === 'string') return { ok: false, detail: jwk };
    const keyObject = createPublicKey({ key: jwk, format: 'jwk' });
    const mismatch = keyMismatch(ALGORITHMS.get(alg)!, keyObject);
    return mismatch === null
      ? { ok: true, key: { algorithm: alg, keyObject } }
      : { ok: false, detail: mismatch };
  } catch (error) {
    return { ok: false, detail: `public key could not be imported: ${messageOf(error)}` };
  }
}

function coseToJwk(key: Map<unknown, unknown>, alg: number): JsonWebKey | string {
  const kty = key.get(LABEL.kty);
  const crv = key.get(LABEL.crv);
  if (kty === KTY.EC2) {
    const curve = EC_CURVES.get(crv as number);
    if (curve === undefined || curve.alg !== alg) {
      return `EC2 curve ${String(crv)} does not fit ${algorithmName(alg)}`;
    }
    const x = bytesOf(key.get(LABEL.x), curve.bytes);
    const y = bytesOf(key.get(LABEL.y), curve.bytes);
    if (x === null || y === null) return `EC2 ${curve.jwk} key needs ${curve.bytes}-byte x and y`;
    return { kty: 'EC', crv: curve.jwk, x, y };
  }
  if (kty === KTY.OKP) {
    const curve = OKP_CURVES.get(crv as number);
    if (curve === undefined || !curve.algs.includes(alg)) {
      return `OKP curve ${String(crv)} does not fit ${algorithmName(alg)}`;
    }
    const x = bytesOf(key.get(LABEL.x), curve.bytes);
    return x === null
      ? `OKP ${curve.jwk} key needs a ${curve.bytes}-byte x`
      : { kty: 'OKP', crv: curve.jwk, x };
  }
  if (kty === KTY.RSA) {
    if (ALGORITHMS.get(alg)?.keyTypes[0] !== 'rsa') return `RSA key does not fit ${algorithmName(alg)}`;
    const n = bytesOf(key.get(LABEL.n));
    const e = bytesOf(key.get(LABEL.e));
    return n === null || e === null ? 'RSA key needs n and e' : { kty: 'RSA', n, e };
  }
  return `COSE key type ${String(kty)} is not supported`;
}

function bytesOf(value: unknown, length?: number): string | null {
  if (!(value instanceof Uint8Array) || value.length === 0) return null;
  if (length !== undefined && value.length !== length) return null;
  return Buffer.from(value).toString('base64url');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
