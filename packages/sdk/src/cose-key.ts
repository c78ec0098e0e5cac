import { constants, createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { decodeCBOR } from '@levischuck/tiny-cbor';

/** COSE algorithm ids (IANA "COSE Algorithms") the verifier understands. */
export const COSE_ALG = {
  ES256: -7,
  ES384: -35,
  ES512: -36,
  EdDSA: -8,
  Ed25519: -19,
  Ed448: -53,
  RS256: -257,
  RS384: -258,
  RS512: -259,
  RS1: -65535,
  PS256: -37,
  PS384: -38,
  PS512: -39,
} as const;

export interface CosePublicKey {
  alg: number;
  key: KeyObject;
}

const EC_CURVES: Record<number, string> = { 1: 'P-256', 2: 'P-384', 3: 'P-521' };
const OKP_CURVES: Record<number, string> = { 6: 'Ed25519', 7: 'Ed448' };
const b64u = (v: unknown): string => {
  if (!(v instanceof Uint8Array)) throw new Error('COSE key parameter is not a byte string');
  return Buffer.from(v).toString('base64url');
};

/** Decodes a COSE_Key (RFC 9052 §7) into a node:crypto public key. Throws on anything unsupported. */
export function importCoseKey(cose: Uint8Array): CosePublicKey {
  const map = decodeCBOR(new Uint8Array(cose));
  if (!(map instanceof Map)) throw new Error('COSE key is not a CBOR map');
  const kty = map.get(1);
  const alg = map.get(3);
  if (typeof alg !== 'number') throw new Error('COSE key has no algorithm');
  const jwk = toJwk(kty, map);
  return { alg, key: createPublicKey({ key: jwk, format: 'jwk' }) };
}

function toJwk(kty: unknown, map: Map<string | number, unknown>): JsonWebKey {
  if (kty === 2) {
    const crv = EC_CURVES[map.get(-1) as number];
    if (!crv) throw new Error('unsupported EC2 curve');
    return { kty: 'EC', crv, x: b64u(map.get(-2)), y: b64u(map.get(-3)) };
  }
  if (kty === 1) {
    const crv = OKP_CURVES[map.get(-1) as number];
    if (!crv) throw new Error('unsupported OKP curve');
    return { kty: 'OKP', crv, x: b64u(map.get(-2)) };
  }
  if (kty === 3) return { kty: 'RSA', n: b64u(map.get(-1)), e: b64u(map.get(-2)) };
  throw new Error(`unsupported COSE key type ${String(kty)}`);
}

const HASH: Record<number, string> = {
  [COSE_ALG.ES256]: 'sha256',
  [COSE_ALG.ES384]: 'sha384',
  [COSE_ALG.ES512]: 'sha512',
  [COSE_ALG.RS256]: 'sha256',
  [COSE_ALG.RS384]: 'sha384',
  [COSE_ALG.RS512]: 'sha512',
  [COSE_ALG.RS1]: 'sha1',
  [COSE_ALG.PS256]: 'sha256',
  [COSE_ALG.PS384]: 'sha384',
  [COSE_ALG.PS512]: 'sha512',
};
const PSS_SALT: Record<number, number> = { [COSE_ALG.PS256]: 32, [COSE_ALG.PS384]: 48, [COSE_ALG.PS512]: 64 };
const EC_CURVE_OF_ALG: Record<number, string> = {
  [COSE_ALG.ES256]: 'prime256v1',
  [COSE_ALG.ES384]: 'secp384r1',
  [COSE_ALG.ES512]: 'secp521r1',
};
const EDDSA = new Set<number>([COSE_ALG.EdDSA, COSE_ALG.Ed25519, COSE_ALG.Ed448]);

/**
 * Verifies a WebAuthn signature as §6.5.6 says: ECDSA signatures are ASN.1 DER (raw r||s is
 * rejected), RSASSA-PKCS1-v1_5 or RSASSA-PSS for RSA, pure EdDSA for OKP keys.
 */
export function verifyCoseSignature(
  alg: number,
  key: KeyObject,
  data: Uint8Array,
  signature: Uint8Array,
): boolean {
  if (EDDSA.has(alg))
    return key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448'
      ? verify(null, data, key, signature)
      : false;
  const hash = HASH[alg];
  if (hash === undefined) throw new Error(`unsupported COSE algorithm ${alg}`);
  if (key.asymmetricKeyType === 'ec') {
    if (key.asymmetricKeyDetails?.namedCurve !== EC_CURVE_OF_ALG[alg]) return false;
    return verify(hash, data, { key, dsaEncoding: 'der' }, signature);
  }
  if (key.asymmetricKeyType !== 'rsa') return false;
  const pss = PSS_SALT[alg];
  if (pss !== undefined)
    return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: pss }, signature);
  return verify(hash, data, { key, padding: constants.RSA_PKCS1_PADDING }, signature);
}
