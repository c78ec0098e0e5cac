import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PublicKeyCache, VERIFIABLE_ALGORITHMS, importCoseKey, verifySignature } from './public-key-cache.js';
import { decodeBase64UrlLenient } from '../encoding.js';

type KeyKind = 'p256' | 'p384' | 'p521' | 'rsa' | 'ed25519' | 'ed448';
const pairs = new Map<KeyKind, { publicKey: KeyObject; privateKey: KeyObject }>();
function keyPair(kind: KeyKind) {
  let pair = pairs.get(kind);
  if (pair === undefined) {
    if (kind === 'rsa') pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    else if (kind === 'ed25519' || kind === 'ed448') pair = generateKeyPairSync(kind as 'ed25519');
    else
      pair = generateKeyPairSync('ec', { namedCurve: { p256: 'P-256', p384: 'P-384', p521: 'P-521' }[kind] });
    pairs.set(kind, pair);
  }
  return pair;
}

const CRV = { 'P-256': 1, 'P-384': 2, 'P-521': 3, Ed25519: 6, Ed448: 7 } as Record<string, number>;
const b = (text: string | undefined) => Buffer.from(text ?? '', 'base64url');

/** COSE_Key labels: kty 1, alg 3, then the key-type parameters -1, -2, -3 in order (RFC 9053). */
function coseMap(kty: number, alg: number, ...params: unknown[]): Map<number, unknown> {
  const map = new Map<number, unknown>([[1, kty]]);
  map.set(3, alg);
  params.forEach((param, i) => map.set(-1 - i, param));
  return map;
}

/** A COSE_Key built with the library's CBOR encoder from a node:crypto public key. */
function coseKey(publicKey: KeyObject, alg: number, extra: Array<[number, unknown]> = []): string {
  const jwk = publicKey.export({ format: 'jwk' });
  const params =
    jwk.kty === 'RSA'
      ? [b(jwk.n), b(jwk.e)]
      : [CRV[jwk.crv!], b(jwk.x), ...(jwk.kty === 'EC' ? [b(jwk.y)] : [])];
  const map = coseMap({ RSA: 3, EC: 2, OKP: 1 }[jwk.kty!]!, alg, ...params);
  for (const [label, value] of extra) map.set(label, value);
  return Buffer.from(isoCBOR.encode(map as never)).toString('base64url');
}

const pss = (saltLength: number) => ({ padding: 6, saltLength }); // RSA_PKCS1_PSS_PADDING
const ALGS: Array<[string, number, KeyKind, (key: KeyObject, data: Buffer) => Buffer]> = [
  ['ES256', -7, 'p256', (key, data) => sign('sha256', data, key)],
  ['ES384', -35, 'p384', (key, data) => sign('sha384', data, key)],
  ['ES512', -36, 'p521', (key, data) => sign('sha512', data, key)],
  ['RS256', -257, 'rsa', (key, data) => sign('sha256', data, key)],
  ['RS384', -258, 'rsa', (key, data) => sign('sha384', data, key)],
  ['RS512', -259, 'rsa', (key, data) => sign('sha512', data, key)],
  ['RS1', -65535, 'rsa', (key, data) => sign('sha1', data, key)],
  ['PS256', -37, 'rsa', (key, data) => sign('sha256', data, { key, ...pss(32) })],
  ['PS384', -38, 'rsa', (key, data) => sign('sha384', data, { key, ...pss(48) })],
  ['PS512', -39, 'rsa', (key, data) => sign('sha512', data, { key, ...pss(64) })],
  ['EdDSA (Ed25519)', -8, 'ed25519', (key, data) => sign(null, data, key)],
  ['EdDSA (Ed448)', -8, 'ed448', (key, data) => sign(null, data, key)],
  ['Ed25519', -19, 'ed25519', (key, data) => sign(null, data, key)],
  ['Ed448', -53, 'ed448', (key, data) => sign(null, data, key)],
];

describe('importCoseKey + verifySignature', () => {
  const data = Buffer.from('authenticatorData || SHA-256(clientDataJSON)');

  it.each(ALGS)('%s: verifies its own signature and nothing else', (_name, alg, kind, signWith) => {
    const { publicKey, privateKey } = keyPair(kind);
    const imported = importCoseKey(coseKey(publicKey, alg));
    if (!imported.ok) throw new Error(imported.detail);
    expect(imported.key.algorithm).toBe(alg);
    const signature = signWith(privateKey, data);
    expect(verifySignature(alg, imported.key.keyObject, data, signature)).toEqual({ valid: true });
    expect(
      verifySignature(alg, imported.key.keyObject, Buffer.concat([data, Buffer.of(0)]), signature).valid,
    ).toBe(false);
    const flipped = Buffer.from(signature);
    flipped[flipped.length - 1]! ^= 0x01;
    expect(verifySignature(alg, imported.key.keyObject, data, flipped).valid).toBe(false);
  });

  it('rejects an ECDSA signature in raw r||s form (WebAuthn requires ASN.1 DER)', () => {
    const { publicKey, privateKey } = keyPair('p256');
    const raw = sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    expect(verifySignature(-7, publicKey, data, raw).valid).toBe(false);
  });

  it('requires the PSS salt to be as long as the hash, and keeps PKCS#1 v1.5 and PSS apart', () => {
    const { publicKey, privateKey } = keyPair('rsa');
    expect(
      verifySignature(-37, publicKey, data, sign('sha256', data, { key: privateKey, ...pss(64) })).valid,
    ).toBe(false);
    expect(verifySignature(-37, publicKey, data, sign('sha256', data, privateKey)).valid).toBe(false);
    expect(
      verifySignature(-257, publicKey, data, sign('sha256', data, { key: privateKey, ...pss(32) })).valid,
    ).toBe(false);
  });

  it('refuses unknown algorithms and keys that do not fit the algorithm, with a reason', () => {
    const ec = keyPair('p256');
    expect(verifySignature(-999, ec.publicKey, data, Buffer.alloc(64))).toEqual({
      valid: false,
      detail: 'COSE algorithm -999 is not supported',
    });
    expect(verifySignature(-7, keyPair('ed25519').publicKey, data, Buffer.alloc(64))).toMatchObject({
      valid: false,
    });
    expect(verifySignature(-7, keyPair('p384').publicKey, data, Buffer.alloc(64))).toMatchObject({
      detail: expect.stringContaining('curve prime256v1'),
    });
    expect(verifySignature(-7, ec.privateKey, data, Buffer.alloc(64)).valid).toBe(false);
    expect(verifySignature(-53, keyPair('ed25519').publicKey, data, Buffer.alloc(114)).valid).toBe(false);
  });

  it.each([
    ['not base64url', '***'],
    ['not CBOR', Buffer.from([0xff, 0x00]).toString('base64url')],
    ['CBOR but not a map', Buffer.from(isoCBOR.encode(5)).toString('base64url')],
    ['no alg', coseKey(keyPair('p256').publicKey, -7, [[3, 'ES256']])],
    ['unsupported alg', coseKey(keyPair('p256').publicKey, -999)],
    ['ES256 on P-384', coseKey(keyPair('p384').publicKey, -7)],
    ['Ed448 alg on an Ed25519 key', coseKey(keyPair('ed25519').publicKey, -53)],
    ['RSA key with an ECDSA alg', coseKey(keyPair('rsa').publicKey, -7)],
    ['EC2 point off the curve', coseKey(keyPair('p256').publicKey, -7, [[-3, Buffer.alloc(32, 7)]])],
    ['short x coordinate', coseKey(keyPair('p256').publicKey, -7, [[-2, Buffer.alloc(31)]])],
    ['unknown key type', coseKey(keyPair('p256').publicKey, -7, [[1, 9]])],
  ])('refuses a COSE key that is %s, without throwing', (_name, cose) => {
    const imported = importCoseKey(cose);
    expect(imported.ok).toBe(false);
    if (!imported.ok) expect(imported.detail.length).toBeGreaterThan(0);
  });

  it('never throws on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const imported = importCoseKey(Buffer.from(bytes).toString('base64url'));
        expect(typeof imported.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });

  it('lists every algorithm it verifies', () => {
    expect([...VERIFIABLE_ALGORITHMS].sort()).toEqual([...new Set(ALGS.map(([, alg]) => alg))].sort());
  });
});

describe('PublicKeyCache', () => {
  const keys = ['p256', 'ed25519', 'p384'] as const;
  const cose = keys.map((kind, i) => coseKey(keyPair(kind).publicKey, [-7, -8, -35][i]!));

  it('imports a key once and hands back the same KeyObject', () => {
    const cache = new PublicKeyCache();
    const first = cache.get(cose[0]!);
    expect(first.ok).toBe(true);
    expect(cache.get(cose[0]!)).toBe(first);
    expect(cache.size).toBe(1);
  });

  it('does not cache failures', () => {
    const cache = new PublicKeyCache();
    expect(cache.get('***').ok).toBe(false);
    expect(cache.size).toBe(0);
  });

  it('evicts the least recently used entry when full', () => {
    const cache = new PublicKeyCache({ maxEntries: 2 });
    const a = cache.get(cose[0]!);
    const b1 = cache.get(cose[1]!);
    expect(cache.get(cose[0]!)).toBe(a); // a is now the most recent
    cache.get(cose[2]!); // evicts b
    expect(cache.size).toBe(2);
    expect(cache.get(cose[0]!)).toBe(a);
    expect(cache.get(cose[1]!)).not.toBe(b1);
  });
});

describe('decodeBase64UrlLenient', () => {
  it.each([
    ['AQID', [1, 2, 3]],
    ['AQI', [1, 2]],
    ['AQI=', [1, 2]],
    ['-_8', [0xfb, 0xff]],
    ['+/8=', [0xfb, 0xff]],
    ['', []],
  ])('decodes %j', (text, bytes) => {
    expect([...decodeBase64UrlLenient(text)!]).toEqual(bytes);
  });

  it.each(['A', 'AQI==', 'AQ=I', 'AQ I', 'AQ*D', 'AQID\n', 'A==='])('refuses %j', (text) => {
    expect(decodeBase64UrlLenient(text)).toBeNull();
  });

  it('refuses non-strings and round-trips random bytes', () => {
    expect(decodeBase64UrlLenient(42)).toBeNull();
    expect(decodeBase64UrlLenient(null)).toBeNull();
    const bytes = randomBytes(100);
    expect(decodeBase64UrlLenient(bytes.toString('base64url'))).toEqual(bytes);
    expect(decodeBase64UrlLenient(bytes.toString('base64'))).toEqual(bytes);
  });
});
