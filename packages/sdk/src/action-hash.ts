import { canonicalJson, sha256 } from './encoding.js';

/**
 * `actionHashHex` of an action: lowercase hex SHA-256 over its RFC 8785 (JCS) canonical JSON.
 * Canonicalize the exact action you are about to execute (amount, currency, target, ids), never
 * a description of it.
 */
export function computeActionHash(action: unknown): string {
  return sha256(canonicalJson(action)).toString('hex');
}
