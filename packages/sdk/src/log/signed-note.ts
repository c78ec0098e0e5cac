import { createHash, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';

/**
 * C2SP signed-note (https://c2sp.org/signed-note): a text ending in a newline, a blank line, then
 * signature lines `— <key name> <base64(key id (4 bytes) || signature)>`. A key id is the first
 * four bytes of SHA-256(key name || 0x0A || signature type || public key).
 */
export const SIG_TYPE_ED25519 = 0x01;
/** C2SP tlog-cosignature's signature type for Ed25519 cosignatures with a timestamp. */
export const SIG_TYPE_COSIGNATURE_V1 = 0x04;

const EM_DASH = '\u2014';

export interface NoteSignature {
  name: string;
  keyId: Buffer;
  /** The bytes after the key id: the signature (and, for a cosignature, its timestamp first). */
  signature: Buffer;
  line: string;
}

export interface ParsedNote {
  /** The signed text, ending with its last newline. */
  text: string;
  signatures: NoteSignature[];
}

export function noteKeyId(name: string, sigType: number, rawPublicKey: Uint8Array): Buffer {
  return createHash('sha256')
    .update(Buffer.from(`${name}\n`, 'utf8'))
    .update(Buffer.of(sigType))
    .update(rawPublicKey)
    .digest()
    .subarray(0, 4);
}

/** A verifier key in the note format: `<name>+<key id hex>+<base64(type || public key)>`. */
export function formatVerifierKey(name: string, sigType: number, rawPublicKey: Uint8Array): string {
  const id = noteKeyId(name, sigType, rawPublicKey).toString('hex');
  return `${name}+${id}+${Buffer.concat([Buffer.of(sigType), rawPublicKey]).toString('base64')}`;
}

export interface VerifierKey {
  name: string;
  keyId: Buffer;
  sigType: number;
  publicKey: KeyObject;
  rawPublicKey: Buffer;
}

export function parseVerifierKey(vkey: string): VerifierKey {
  // The name and key id hold no '+'; the base64 key may.
  const match = /^([^+\s]+)\+([0-9a-fA-F]{8})\+([A-Za-z0-9+/]+=*)$/.exec(vkey.trim());
  if (!match) throw new Error('a verifier key is name+keyid+base64');
  const [, name, idHex, b64] = match as unknown as [string, string, string, string];
  const body = Buffer.from(b64, 'base64');
  const sigType = body[0];
  if (body.length !== 33 || (sigType !== SIG_TYPE_ED25519 && sigType !== SIG_TYPE_COSIGNATURE_V1))
    throw new Error('a verifier key must hold an Ed25519 key (type 0x01 or 0x04)');
  const raw = body.subarray(1);
  const keyId = noteKeyId(name, sigType, raw);
  if (keyId.toString('hex') !== idHex.toLowerCase())
    throw new Error('the verifier key id does not match its key');
  return { name, keyId, sigType, publicKey: ed25519PublicKey(raw), rawPublicKey: raw };
}

export function ed25519PublicKey(raw: Uint8Array): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') },
    format: 'jwk',
  });
}

/** The signature line an Ed25519 key named `name` puts under `text`. */
export function signNoteLine(
  text: string,
  name: string,
  privateKey: KeyObject,
  rawPublicKey: Uint8Array,
): string {
  const signature = sign(null, Buffer.from(text, 'utf8'), privateKey);
  const value = Buffer.concat([noteKeyId(name, SIG_TYPE_ED25519, rawPublicKey), signature]);
  return formatSignatureLine(name, value);
}

export function formatSignatureLine(name: string, value: Uint8Array): string {
  return `${EM_DASH} ${name} ${Buffer.from(value).toString('base64')}\n`;
}

/** The whole note: text, blank line, signature lines. */
export function formatNote(text: string, lines: readonly string[]): string {
  return `${text}\n${lines.join('')}`;
}

/** Splits a note into its text and its signature lines; throws on anything malformed. */
export function parseNote(note: string): ParsedNote {
  const split = note.lastIndexOf('\n\n');
  if (split < 0) throw new Error('a signed note needs a blank line between text and signatures');
  const text = note.slice(0, split + 1);
  const block = note.slice(split + 2);
  if (!block.endsWith('\n')) throw new Error('a signed note ends with a newline');
  const signatures = block
    .slice(0, -1)
    .split('\n')
    .map((line) => parseSignatureLine(`${line}\n`));
  if (signatures.length === 0) throw new Error('a signed note has at least one signature');
  return { text, signatures };
}

export function parseSignatureLine(line: string): NoteSignature {
  const match = /^\u2014 (\S+) ([A-Za-z0-9+/=]+)\n$/.exec(line);
  if (!match) throw new Error(`not a signature line: ${JSON.stringify(line.trimEnd())}`);
  const value = Buffer.from(match[2]!, 'base64');
  if (value.length < 5) throw new Error('a signature line holds a key id and a signature');
  return { name: match[1]!, keyId: value.subarray(0, 4), signature: value.subarray(4), line };
}

/** True when `note` carries a valid Ed25519 signature of `key` (name and key id must match). */
export function hasValidSignature(note: ParsedNote, key: VerifierKey): boolean {
  return note.signatures.some(
    (s) =>
      s.name === key.name &&
      s.keyId.equals(key.keyId) &&
      s.signature.length === 64 &&
      verify(null, Buffer.from(note.text, 'utf8'), key.publicKey, s.signature),
  );
}
