import { parse, type AnyNode } from '@humanwhocodes/momoa';

/**
 * CollectedClientData (WebAuthn L3 §5.8.1) from its raw bytes, strictly: one implementation for
 * the service's online check and the auditor's offline check, so both read the same fields.
 * Refused, because no browser produces them and parsers disagree on them (issue 9 §3):
 * - invalid UTF-8, or a UTF-8 byte order mark before the JSON (a decoder that strips it and one
 *   that does not would read different text);
 * - a member name twice in any object (JSON.parse keeps the last, other parsers the first, so an
 *   auditor could read another challenge or origin than the verifier did).
 * Duplicates are found with @humanwhocodes/momoa, a maintained JSON parser that reports every
 * member; values come from JSON.parse. Both must accept the text.
 */
export interface ClientData {
  type: string;
  challenge: string;
  origin: string;
  crossOrigin: boolean;
  topOrigin: string | null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = [0xef, 0xbb, 0xbf];

/** The parsed client data, or why the bytes are refused (a sentence for the denial detail). */
export function parseClientDataJSON(bytes: Uint8Array): ClientData | string {
  if (BOM.every((b, i) => bytes[i] === b)) return 'clientDataJSON starts with a UTF-8 byte order mark';
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
    value = JSON.parse(text);
  } catch {
    return 'clientDataJSON is not UTF-8 JSON';
  }
  let duplicate: string | null;
  try {
    duplicate = firstDuplicateMember(parse(text, { mode: 'json' }).body);
  } catch {
    return 'clientDataJSON is not strict JSON';
  }
  if (duplicate !== null) return `clientDataJSON has the member ${quote(duplicate)} more than once`;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return 'clientDataJSON is not a JSON object';
  }
  const { type, challenge, origin, crossOrigin, topOrigin } = value as Record<string, unknown>;
  if (typeof type !== 'string' || typeof challenge !== 'string' || typeof origin !== 'string') {
    return 'clientDataJSON lacks a string type, challenge or origin';
  }
  if (crossOrigin !== undefined && typeof crossOrigin !== 'boolean') {
    return 'clientDataJSON crossOrigin is not a boolean';
  }
  if (topOrigin !== undefined && typeof topOrigin !== 'string') {
    return 'clientDataJSON topOrigin is not a string';
  }
  return { type, challenge, origin, crossOrigin: crossOrigin === true, topOrigin: topOrigin ?? null };
}

/** The first member name that appears twice in one object, at any depth; null when none does. */
function firstDuplicateMember(node: AnyNode): string | null {
  if (node.type === 'Object') {
    const names = new Set<string>();
    for (const member of node.members) {
      const name = member.name.type === 'String' ? member.name.value : member.name.name;
      if (names.has(name)) return name;
      names.add(name);
      const inner = firstDuplicateMember(member.value);
      if (inner !== null) return inner;
    }
  } else if (node.type === 'Array') {
    for (const element of node.elements) {
      const inner = firstDuplicateMember(element.value);
      if (inner !== null) return inner;
    }
  }
  return null;
}

/** Attacker-supplied text in a detail: JSON-quoted and capped. */
function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
