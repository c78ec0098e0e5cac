/**
 * Lone surrogates in a JSON text (`"\ud800"`): JSON.parse accepts the escape, but a string that
 * is not well-formed Unicode has no RFC 8785 canonical form (it takes I-JSON, RFC 7493 §2.1), and
 * the executors' own readers would not agree on it (Go turns it into U+FFFD, Python keeps it), so
 * an action holding one could not be hashed the same way twice. The body is strict UTF-8 already,
 * so a surrogate can only come from a `\u` escape: the value is searched only when the text has
 * one, iteratively (a body may nest deeply).
 */
export interface LoneSurrogate {
  /** The surrogate as its escape, `\ud800`. */
  escape: string;
  /** JSON Pointer of the string, or of the object whose member name holds it. */
  pointer: string;
}

const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const LONE = /\p{Cs}/u;

function loneIn(text: string): string | undefined {
  const match = LONE.exec(text);
  return match ? `\\u${match[0].charCodeAt(0).toString(16)}` : undefined;
}

const escapePointer = (name: string) => name.replaceAll('~', '~0').replaceAll('/', '~1');

/** The first string or member name of `value` (which JSON.parse made of `text`) with a lone surrogate. */
export function findLoneSurrogate(text: string, value: unknown): LoneSurrogate | undefined {
  if (!SURROGATE_ESCAPE.test(text)) return undefined;
  const pending: [unknown, string][] = [[value, '']];
  while (pending.length > 0) {
    const [next, pointer] = pending.pop()!;
    if (typeof next === 'string') {
      const escape = loneIn(next);
      if (escape !== undefined) return { escape, pointer };
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, item] of Object.entries(next)) {
        const escape = loneIn(key);
        if (escape !== undefined) return { escape, pointer };
        pending.push([item, `${pointer}/${escapePointer(key)}`]);
      }
    }
  }
  return undefined;
}
