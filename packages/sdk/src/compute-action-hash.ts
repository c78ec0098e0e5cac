import { canonicalJson } from './canonical-json.js';

/**
 * `actionHashHex` of an action: lowercase hex SHA-256 over its RFC 8785 (JCS) canonical UTF-8
 * bytes. Canonicalize the exact action you are about to execute (amount, currency, target, ids),
 * never a description of it. Asynchronous because it uses WebCrypto (`globalThis.crypto.subtle`),
 * which Node 20+, browsers, Deno, Bun and edge runtimes all provide; in Node,
 * `computeActionHashSync` from `@presence/sdk/node` gives the same value synchronously.
 */
export async function computeActionHash(action: unknown): Promise<string> {
  const bytes = new TextEncoder().encode(canonicalJson(action));
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', bytes));
  let hex = '';
  for (const byte of digest) hex += byte.toString(16).padStart(2, '0');
  return hex;
}
