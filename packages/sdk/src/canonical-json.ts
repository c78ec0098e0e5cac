import canonicalizeModule from 'canonicalize';
import { PresenceUsageError } from './usage-error.js';

// canonicalize is CommonJS whose typings declare an ES default export; at run time the default
// import is the function itself. It has no Node-only imports, so this file is browser-safe.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 (JCS) canonical JSON text: members sorted by UTF-16 code units, no whitespace,
 * ECMAScript number and string serialization. Throws on values JSON cannot carry (NaN,
 * Infinity, undefined at the top level, BigInt).
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch {
    text = undefined;
  }
  if (text === undefined)
    throw new PresenceUsageError(
      'the action',
      'a JSON value: objects, arrays, strings, finite numbers, booleans and null (no undefined, NaN, Infinity or BigInt)',
      value,
    );
  return text;
}
