import { createHash, createPublicKey } from 'node:crypto';
import type { ServiceKey } from '#contract';
import { PresenceUsageError, serviceKeysOf } from '../usage-error.js';

/** What the verifier trusts: keys you obtained yourself, never the ones inside the pack. */
export interface TrustRoots {
  /** The service's published keys (a saved /.well-known/presence/keys.json, or its `keys` array), with validity. */
  keys?: readonly ServiceKey[] | { keys: readonly ServiceKey[] } | undefined;
  /** Ed25519 public keys in PEM (SPKI) you pinned; the key id is derived from the key. */
  pinnedPublicKeyPem?: string | readonly string[] | undefined;
  /** Ed25519 log public keys in PEM you pinned (besides the `use: "log"` entries of `keys`). */
  pinnedLogKeyPem?: readonly string[] | undefined;
  /** A checkpoint you saved earlier (its text): the pack's checkpoint must extend it. */
  since?: string | undefined;
  /** Fetches a consistency proof from the service when the pack lacks the one from `since`. */
  fetchConsistency?:
    ((from: number, to: number) => Promise<{ from: number; to: number; hashes: string[] }>) | undefined;
  /** Witness verifier keys you trust (`name+id+base64`), and how many must have cosigned. */
  witnessKeys?: readonly string[] | undefined;
  minWitnesses?: number | undefined;
}

/** The raw log keys to trust: pinned PEMs and the `use: "log"` entries of the published keys. */
export function trustedLogKeys(roots: TrustRoots): Buffer[] {
  const pinned = (roots.pinnedLogKeyPem ?? []).map((pem) =>
    Buffer.from(fromPem(pem).publicKeyB64Url, 'base64url'),
  );
  const published = publishedKeys(roots)
    .filter((k) => k.use === 'log')
    .map((k) => Buffer.from(k.publicKeyB64Url, 'base64url'));
  return [...pinned, ...published];
}

/** `roots.keys` in either shape (keys.json as served, or its array); none when unset. */
export function publishedKeys(roots: TrustRoots): readonly ServiceKey[] {
  return roots.keys === undefined ? [] : serviceKeysOf(roots.keys, 'verifyPack roots.keys');
}

export interface TrustedKey extends ServiceKey {
  /** True for a pinned PEM: no validity window is known for it. */
  pinned: boolean;
}

/** The service's key id rule: `ed25519-` + the first 16 hex digits of SHA-256(raw public key). */
export function serviceKeyId(rawPublicKey: Uint8Array): string {
  return `ed25519-${createHash('sha256').update(rawPublicKey).digest('hex').slice(0, 16)}`;
}

export function trustedKeys(roots: TrustRoots): TrustedKey[] {
  const out = new Map<string, TrustedKey>();
  const pems = roots.pinnedPublicKeyPem;
  for (const pem of typeof pems === 'string' ? [pems] : (pems ?? [])) {
    const key = fromPem(pem);
    out.set(key.kid, key);
  }
  // A published entry for the same key adds its validity window.
  // A log key (`use: "log"`) signs checkpoints only: it never vouches for a receipt or a pack.
  for (const k of publishedKeys(roots)) if (k.use !== 'log') out.set(k.kid, { ...k, pinned: false });
  return [...out.values()];
}

function fromPem(pem: string): TrustedKey {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new PresenceUsageError(
      'pinnedPublicKeyPem',
      'Ed25519 public keys in PEM (SPKI)',
      key.asymmetricKeyType,
    );
  }
  const raw = Buffer.from(key.export({ format: 'jwk' }).x ?? '', 'base64url');
  return {
    kid: serviceKeyId(raw),
    alg: 'Ed25519',
    publicKeyB64Url: raw.toString('base64url'),
    publicKeyPem: key.export({ format: 'pem', type: 'spki' }).toString(),
    notBefore: new Date(0).toISOString(),
    notAfter: null,
    status: 'active',
    pinned: true,
  };
}
