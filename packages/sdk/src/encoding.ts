import { createHash } from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// canonicalize is CommonJS whose typings declare an ES default export; at run time the default
// import is the function itself.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string | undefined;

export function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** RFC 8785 (JCS) canonical JSON text. */
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no canonical JSON form');
  return text;
}
