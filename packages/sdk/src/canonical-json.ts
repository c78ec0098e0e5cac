import canonicalizeModule from 'canonicalize';
import { PresenceUsageError } from './usage-error.js';

// canonicalize is CommonJS whose typings declare an ES default export; at run time the default
// import is the function itself. It has no Node-only imports, so this file is browser-safe.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * A lone surrogate as the serializer writes it: JSON.stringify escapes only control characters
 * and unpaired U+D800–U+DFFF, so an escape `\udXXX` that is not itself an escaped backslash
 * (an even run of backslashes before it) is one.
 */
const LONE_SURROGATE = /(?<!\\)(?:\\\\)*\\u(d[89a-f][0-9a-f]{2})/;

/**
 * RFC 8785 (JCS) canonical JSON text: members sorted by UTF-16 code units, no whitespace,
 * ECMAScript number and string serialization. Throws on values JSON cannot carry (NaN,
 * Infinity, undefined at the top level, BigInt) and on strings that are not well-formed Unicode:
 * RFC 8785 takes I-JSON (RFC 7493 §2.1), which has no lone surrogate, and the Python and Go
 * readers could not carry one the same way.
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
  const lone = LONE_SURROGATE.exec(text);
  if (lone)
    throw new PresenceUsageError(
      'the action',
      `well-formed Unicode strings (I-JSON, RFC 7493): a string or member name holds the lone surrogate \\u${lone[1]}`,
      value,
    );
  return text;
}

/** Why evidence holding a lone surrogate fails its schema check: it has no canonical bytes. */
export const NOT_I_JSON =
  'a string is not well-formed Unicode (a lone surrogate), so it has no RFC 8785 form';

/** canonicalJson, or null for a value it refuses: for verifiers, which report instead of throwing. */
export function canonicalOrNull(value: unknown): string | null {
  try {
    return canonicalJson(value);
  } catch {
    return null;
  }
}
