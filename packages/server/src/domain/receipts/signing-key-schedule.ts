import { createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { ServiceKey } from '@presence/contract';
import type { Deps } from '../deps.js';
import { sha256Hex, toIso } from '../encoding.js';
import type { SigningKeyRecord } from './ports.js';

/**
 * The signing-key schedule is a pure function of the key table and a time (ADR 0007): the key that
 * signs evidence dated `at` is, among the keys valid at `at` (notBefore ≤ at < notAfter), the one
 * with the latest notBefore. Every process holding the same table makes the same choice, so a
 * rotation only has to write future times into the table, never to tell processes anything.
 */
export function signingKeyAt(rows: readonly SigningKeyRecord[], at: number): SigningKeyRecord | undefined {
  let best: SigningKeyRecord | undefined;
  for (const k of rows) {
    if (k.notBefore > at || (k.notAfter !== null && at >= k.notAfter)) continue;
    if (!best || k.notBefore > best.notBefore || (k.notBefore === best.notBefore && k.kid > best.kid))
      best = k;
  }
  return best;
}

/** As keys.json shows it at `now`: `active` signs now, `next` is scheduled, `retired` signs no more. */
export function keyStatusAt(rows: readonly SigningKeyRecord[], key: SigningKeyRecord, now: number) {
  if (key.notBefore > now) return 'next' as const;
  return signingKeyAt(rows, now)?.kid === key.kid ? ('active' as const) : ('retired' as const);
}

/** The published key set at `now`: the active key first, then the scheduled one, then the newest retired. */
export function publishedKeySet(
  rows: readonly SigningKeyRecord[],
  now: number,
  pem: (k: SigningKeyRecord) => string,
): ServiceKey[] {
  const rank = { active: 0, next: 1, retired: 2 } as const;
  return rows
    .map((k) => ({ k, status: keyStatusAt(rows, k, now) }))
    .sort(
      (a, b) =>
        rank[a.status] - rank[b.status] || b.k.notBefore - a.k.notBefore || (a.k.kid < b.k.kid ? -1 : 1),
    )
    .map(({ k, status }) => ({
      kid: k.kid,
      alg: 'Ed25519' as const,
      publicKeyB64Url: k.publicKeyB64Url,
      publicKeyPem: pem(k),
      notBefore: toIso(k.notBefore),
      notAfter: k.notAfter === null ? null : toIso(k.notAfter),
      status,
    }));
}

/** Key ids are derived from the key itself: `ed25519-` + 16 hex of SHA-256(raw public key). */
export function signingKeyId(rawPublicKey: Buffer): string {
  return `ed25519-${sha256Hex(rawPublicKey).slice(0, 16)}`;
}

/** The additional data the private key is sealed under, so a sealed key cannot be swapped for another's. */
export function sealContext(kid: string): string {
  return `presence/signing-key/${kid}`;
}

/**
 * A fresh Ed25519 key pair: the raw public key, its kid, and the PKCS#8 private key sealed with the
 * master key under the context `sealContextOf(kid)`. Receipt signing keys and receipt-log keys both
 * come from here; each kind has its own seal context, so one kind's sealed key never opens as another.
 */
export function newSealedEd25519Key(
  deps: Pick<Deps, 'clock' | 'secrets'>,
  sealContextOf: (kid: string) => string,
): { kid: string; publicKeyB64Url: string; privateKeySealed: string; createdAt: number } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  const kid = signingKeyId(raw);
  return {
    kid,
    publicKeyB64Url: raw.toString('base64url'),
    privateKeySealed: deps.secrets.seal(
      privateKey.export({ format: 'der', type: 'pkcs8' }),
      sealContextOf(kid),
    ),
    createdAt: deps.clock.now(),
  };
}

/** A fresh receipt signing key, valid from `notBefore` on. */
export function newSigningKey(deps: Pick<Deps, 'clock' | 'secrets'>, notBefore: number): SigningKeyRecord {
  return { ...newSealedEd25519Key(deps, sealContext), notBefore, notAfter: null, status: 'active' };
}

export function publicKeyPem(k: SigningKeyRecord): string {
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: k.publicKeyB64Url },
    format: 'jwk',
  });
  return publicKey.export({ format: 'pem', type: 'spki' }).toString();
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url');
}
