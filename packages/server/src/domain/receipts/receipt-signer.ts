import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { ServiceKey } from '@presence/contract';
import type { Deps } from '../deps.js';
import { sha256Hex, toIso } from '../encoding.js';
import type { SigningKeyRecord } from './ports.js';

/** Signs receipts and export manifests with the service's active Ed25519 key. */
export interface ReceiptSigner {
  sign(message: Buffer): { kid: string; signatureB64Url: string };
  /** Every key ever used, active first: old keys stay published so old evidence verifies. */
  publishedKeys(): ServiceKey[];
  /** Re-reads the key table (another process may have rotated). */
  refresh(): Promise<void>;
}

type SignerDeps = Pick<Deps, 'store' | 'clock' | 'secrets'>;

/** Key ids are derived from the key itself: `ed25519-` + 16 hex of SHA-256(raw public key). */
export function signingKeyId(rawPublicKey: Buffer): string {
  return `ed25519-${sha256Hex(rawPublicKey).slice(0, 16)}`;
}

export async function loadReceiptSigner(deps: SignerDeps): Promise<ReceiptSigner> {
  let state = await loadKeys(deps);
  return {
    sign(message) {
      const signature = sign(null, message, state.activePrivate);
      return { kid: state.active.kid, signatureB64Url: signature.toString('base64url') };
    },
    publishedKeys: () => state.published,
    async refresh() {
      state = await loadKeys(deps);
    },
  };
}

async function loadKeys(deps: SignerDeps) {
  let rows = await deps.store.signingKeys.list();
  if (!rows.some((k) => k.status === 'active')) {
    await deps.store.signingKeys.insert(newSigningKey(deps));
    rows = await deps.store.signingKeys.list();
  }
  const active = pickActive(rows);
  const activePrivate = createPrivateKey({
    key: deps.secrets.open(active.privateKeySealed, signingKeySealContext(active.kid)),
    format: 'der',
    type: 'pkcs8',
  });
  return { active, activePrivate, published: [...rows].sort(byActiveThenNewest).map(toServiceKey) };
}

/** Two processes may both create a first key at once: all stay valid, the newest signs. */
function pickActive(rows: SigningKeyRecord[]): SigningKeyRecord {
  const active = rows.filter((k) => k.status === 'active').sort(byActiveThenNewest)[0];
  if (!active) throw new Error('no active signing key');
  return active;
}

function byActiveThenNewest(a: SigningKeyRecord, b: SigningKeyRecord): number {
  if (a.status !== b.status) return a.status === 'active' ? -1 : 1;
  return b.notBefore - a.notBefore || a.kid.localeCompare(b.kid);
}

export function newSigningKey(deps: Pick<Deps, 'clock' | 'secrets'>): SigningKeyRecord {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = rawPublicKey(publicKey);
  const kid = signingKeyId(raw);
  const now = deps.clock.now();
  return {
    kid,
    publicKeyB64Url: raw.toString('base64url'),
    privateKeySealed: deps.secrets.seal(
      privateKey.export({ format: 'der', type: 'pkcs8' }),
      signingKeySealContext(kid),
    ),
    createdAt: now,
    notBefore: now,
    notAfter: null,
    status: 'active',
  };
}

/** Retires every active key and makes a new one; returns the new key id. */
export async function rotateSigningKey(deps: SignerDeps): Promise<string> {
  return deps.store.transaction(async (tx) => {
    const fresh = newSigningKey(deps);
    for (const k of await tx.signingKeys.list()) {
      if (k.status === 'active') await tx.signingKeys.retire(k.kid, fresh.notBefore);
    }
    await tx.signingKeys.insert(fresh);
    return fresh.kid;
  });
}

export function signingKeySealContext(kid: string): string {
  return `presence/signing-key/${kid}`;
}

function rawPublicKey(key: KeyObject): Buffer {
  const jwk = key.export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url');
}

function toServiceKey(k: SigningKeyRecord): ServiceKey {
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: k.publicKeyB64Url },
    format: 'jwk',
  });
  return {
    kid: k.kid,
    alg: 'Ed25519',
    publicKeyB64Url: k.publicKeyB64Url,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    notBefore: toIso(k.notBefore),
    notAfter: k.notAfter === null ? null : toIso(k.notAfter),
    status: k.status,
  };
}
