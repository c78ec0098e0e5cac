import { parse, type AnyNode } from '@humanwhocodes/momoa';

/**
 * Duplicate member names in a JSON text (`{"a":1,"a":2}`): JSON.parse keeps the last, other
 * parsers the first, so a body would mean one thing to us and another to a proxy, a log reader or
 * an auditor. The check runs on every JSON body, the verify hot path included, so it is in two
 * steps: a linear count of the members written in the text (every member name is a string
 * followed by `:`) against the members of the parsed value; only when they differ does
 * @humanwhocodes/momoa (a maintained JSON parser that reports every member, the one the SDK uses
 * for clientDataJSON) find which name is repeated, and where.
 */
export interface DuplicateMember {
  /** Undefined when the body nests deeper than the search can follow (the counts still differ). */
  name: string | undefined;
  /** JSON Pointer of the object holding it ('' for the top level). */
  pointer: string;
}

/** The first duplicate member of `text`, which JSON.parse accepted as `value`; undefined if none. */
export function findDuplicateMember(text: string, value: unknown): DuplicateMember | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (membersInText(text) === membersInValue(value)) return undefined;
  try {
    return firstDuplicate(parse(text, { mode: 'json' }).body, '');
  } catch (error) {
    // momoa and the search recurse; a body nested deeper than the stack still has a duplicate.
    if (error instanceof RangeError) return { name: undefined, pointer: '' };
    throw error;
  }
}

const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** Strings of valid JSON text followed, after whitespace, by a colon: its member names. */
function membersInText(text: string): number {
  let count = 0;
  let at = text.indexOf('"');
  while (at !== -1) {
    let end = text.indexOf('"', at + 1);
    while (isEscaped(text, end)) end = text.indexOf('"', end + 1);
    let next = end + 1;
    while (next < text.length && text.charCodeAt(next) <= 0x20) next++;
    if (text.charCodeAt(next) === COLON) count++;
    at = text.indexOf('"', next);
  }
  return count;
}

/** A quote preceded by an odd number of backslashes is inside the string. */
function isEscaped(text: string, quote: number): boolean {
  let slashes = 0;
  while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
  return slashes % 2 === 1;
}

/** Members of every object in the value, counted without recursion (a body may nest deeply). */
function membersInValue(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) if (typeof item === 'object' && item !== null) pending.push(item);
      continue;
    }
    for (const key in next) {
      count++;
      const item = (next as Record<string, unknown>)[key];
      if (typeof item === 'object' && item !== null) pending.push(item);
    }
  }
  return count;
}

function firstDuplicate(node: AnyNode, pointer: string): DuplicateMember | undefined {
  if (node.type === 'Object') {
    const names = new Set<string>();
    for (const member of node.members) {
      const name = member.name.type === 'String' ? member.name.value : member.name.name;
      if (names.has(name)) return { name, pointer };
      names.add(name);
      const inner = firstDuplicate(member.value, `${pointer}/${escapePointer(name)}`);
      if (inner) return inner;
    }
  } else if (node.type === 'Array') {
    for (const [index, element] of node.elements.entries()) {
      const inner = firstDuplicate(element.value, `${pointer}/${index}`);
      if (inner) return inner;
    }
  }
  return undefined;
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1');
}
