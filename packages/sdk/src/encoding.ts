import { createHash } from 'node:crypto';

export { canonicalJson } from './canonical-json.js';

/** Node-only: SHA-256 with node:crypto (the universal entry uses WebCrypto instead). */
export function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}
