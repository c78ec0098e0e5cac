import { canonicalJson, sha256 } from './encoding.js';

/** Node-only, synchronous `computeActionHash`: the same lowercase hex SHA-256 of the RFC 8785 bytes. */
export function computeActionHashSync(action: unknown): string {
  return sha256(canonicalJson(action)).toString('hex');
}
