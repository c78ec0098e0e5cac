import { createHash, createPublicKey } from 'node:crypto';
import type { ServiceKey } from '#contract';

/** What the verifier trusts: keys you obtained yourself, never the ones inside the pack. */
export interface TrustRoots {
  /** The service's published keys (a saved /.well-known/presence/keys.json), with validity. */
  keys?: readonly ServiceKey[] | undefined;
  /** Ed25519 public keys in PEM (SPKI) you pinned; the key id is derived from the key. */
  pinnedPublicKeyPem?: string | readonly string[] | undefined;
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
  for (const k of roots.keys ?? []) out.set(k.kid, { ...k, pinned: false });
  return [...out.values()];
}

function fromPem(pem: string): TrustedKey {
  const key = createPublicKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new Error(`a pinned key must be Ed25519, not ${String(key.asymmetricKeyType)}`);
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
