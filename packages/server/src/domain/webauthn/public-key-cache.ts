import {
  algorithmName,
  importCoseKey as importCoseKeyBytes,
  verifyCoseSignature,
  VERIFIABLE_ALGORITHMS,
  type KeyImport,
} from '@presence/sdk/node';
import { decodeBase64UrlLenient } from '../encoding.js';

/**
 * Credential public keys for the hot path: the SDK's COSE import (the same code auditors run
 * offline), memoized in a bounded LRU. Re-importing a key costs several times the verification
 * itself, hence the cache.
 */
export { algorithmName, VERIFIABLE_ALGORITHMS, type KeyImport };
export type { CredentialKey, SignatureCheck } from '@presence/sdk/node';
export const verifySignature = verifyCoseSignature;

/** COSE_Key as stored (base64url) → KeyObject. */
export function importCoseKey(coseKeyB64Url: string): KeyImport {
  const bytes = decodeBase64UrlLenient(coseKeyB64Url);
  return bytes === null ? { ok: false, detail: 'public key is not base64url' } : importCoseKeyBytes(bytes);
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
