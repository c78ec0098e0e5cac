import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { cose, decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

/**
 * Credential public keys: COSE_Key (base64url, as stored) → node:crypto KeyObject, imported once
 * and kept in a bounded LRU, plus the one signature check every WebAuthn verification ends in.
 * Re-importing a key costs several times the verification itself, hence the cache.
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
const EC_CURVES = new Map([
  [cose.COSECRV.P256 as number, { jwk: 'P-256', bytes: 32, alg: -7 }],
  [cose.COSECRV.P384 as number, { jwk: 'P-384', bytes: 48, alg: -35 }],
  [cose.COSECRV.P521 as number, { jwk: 'P-521', bytes: 66, alg: -36 }],
]);
const OKP_CURVES = new Map([
  [cose.COSECRV.ED25519 as number, { jwk: 'Ed25519', bytes: 32, algs: [-8, -19] }],
  [7, { jwk: 'Ed448', bytes: 57, algs: [-8, -53] }], // COSE crv 7 = Ed448 (RFC 9053)
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
export function verifySignature(
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

function keyInput(spec: AlgorithmSpec, key: KeyObject) {
  if (spec.curve !== undefined) return { key, dsaEncoding: 'der' as const };
  if (spec.padding === 'pkcs1') return { key, padding: constants.RSA_PKCS1_PADDING };
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

/** COSE_Key (base64url) → KeyObject through a JWK; the COSE alg must fit the key type and curve. */
export function importCoseKey(coseKeyB64Url: string): KeyImport {
  try {
    const bytes = decodeBase64UrlLenient(coseKeyB64Url);
    if (bytes === null) return { ok: false, detail: 'public key is not base64url' };
    const coseKey: unknown = decodeCredentialPublicKey(new Uint8Array(bytes));
    if (!(coseKey instanceof Map)) return { ok: false, detail: 'public key is not a COSE_Key map' };
    const alg: unknown = coseKey.get(cose.COSEKEYS.alg);
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
  const kty = key.get(cose.COSEKEYS.kty);
  const crv = key.get(cose.COSEKEYS.crv);
  if (kty === cose.COSEKTY.EC2) {
    const curve = EC_CURVES.get(crv as number);
    if (curve === undefined || curve.alg !== alg) {
      return `EC2 curve ${String(crv)} does not fit ${algorithmName(alg)}`;
    }
    const x = bytesOf(key.get(cose.COSEKEYS.x), curve.bytes);
    const y = bytesOf(key.get(cose.COSEKEYS.y), curve.bytes);
    if (x === null || y === null) return `EC2 ${curve.jwk} key needs ${curve.bytes}-byte x and y`;
    return { kty: 'EC', crv: curve.jwk, x, y };
  }
  if (kty === cose.COSEKTY.OKP) {
    const curve = OKP_CURVES.get(crv as number);
    if (curve === undefined || !curve.algs.includes(alg)) {
      return `OKP curve ${String(crv)} does not fit ${algorithmName(alg)}`;
    }
    const x = bytesOf(key.get(cose.COSEKEYS.x), curve.bytes);
    return x === null
      ? `OKP ${curve.jwk} key needs a ${curve.bytes}-byte x`
      : { kty: 'OKP', crv: curve.jwk, x };
  }
  if (kty === cose.COSEKTY.RSA) {
    if (ALGORITHMS.get(alg)?.keyTypes[0] !== 'rsa') return `RSA key does not fit ${algorithmName(alg)}`;
    const n = bytesOf(key.get(cose.COSEKEYS.n));
    const e = bytesOf(key.get(cose.COSEKEYS.e));
    return n === null || e === null ? 'RSA key needs n and e' : { kty: 'RSA', n, e };
  }
  return `COSE key type ${String(kty)} is not supported`;
}

function bytesOf(value: unknown, length?: number): string | null {
  if (!(value instanceof Uint8Array) || value.length === 0) return null;
  if (length !== undefined && value.length !== length) return null;
  return Buffer.from(value).toString('base64url');
}

/**
 * Memoizes importCoseKey by the stored base64url string, least recently used first out. One per
 * process (compose.ts); the hot path of every presence verification goes through `get`.
 */
export class PublicKeyCache {
  readonly #entries = new Map<string, KeyImport & { ok: true }>();
  readonly #maxEntries: number;

  constructor(options: { maxEntries?: number } = {}) {
    this.#maxEntries = Math.max(1, options.maxEntries ?? 10_000);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(coseKeyB64Url: string): KeyImport {
    const hit = this.#entries.get(coseKeyB64Url);
    if (hit !== undefined) {
      this.#entries.delete(coseKeyB64Url);
      this.#entries.set(coseKeyB64Url, hit);
      return hit;
    }
    const imported = importCoseKey(coseKeyB64Url);
    if (imported.ok) {
      if (this.#entries.size >= this.#maxEntries) {
        const oldest = this.#entries.keys().next();
        if (oldest.done !== true) this.#entries.delete(oldest.value);
      }
      this.#entries.set(coseKeyB64Url, imported);
    }
    return imported;
  }
}

const BASE64_TEXT = /^[A-Za-z0-9_+/-]*={0,2}$/;

/**
 * base64url → bytes, tolerating '=' padding and the standard alphabet (real authenticator vectors
 * use both). Anything else — other characters, impossible lengths, misplaced padding — is null,
 * never silently skipped the way Buffer.from(…, 'base64') would.
 */
export function decodeBase64UrlLenient(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !BASE64_TEXT.test(text)) return null;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  if (body.length !== text.length && text.length % 4 !== 0) return null;
  return Buffer.from(body, 'base64');
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
