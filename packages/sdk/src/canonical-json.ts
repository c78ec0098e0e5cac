import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS whose typings declare an ES default export; at run time the default
// import is the function itself. It has no Node-only imports, so this file is browser-safe.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

/**
 * RFC 8785 (JCS) canonical JSON text: members sorted by UTF-16 code units, no whitespace,
 * ECMAScript number and string serialization. Throws on values JSON cannot carry (NaN,
 * Infinity, undefined at the top level, BigInt).
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}
