import { crc32 } from 'node:zlib';
import type { Random } from '../ports.js';
import { sha256Hex } from '../encoding.js';

/**
 * API key format (docs/security.md): `presence_` + 43 base62 characters (256 random bits) + a
 * 6-character base62 CRC32 of those 43, so a secret scanner can tell a real key from a random
 * string without asking us, and a typo is refused before any lookup.
 */
export const KEY_PREFIX = 'presence_';
/** Keys issued before the checksummed format: `prs_` + 32 random bytes in base64url. Still accepted. */
export const LEGACY_KEY_PREFIX = 'prs_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 43;
const CHECKSUM_LENGTH = 6;
const NEW_FORMAT = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}$`);
const LEGACY_FORMAT = /^prs_[A-Za-z0-9_-]{1,124}$/;
const SHOWN_PREFIX_LENGTH = 16;

export interface NewKeySecret {
  secret: string;
  prefix: string;
  keyHash: string;
}

/** `length` base62 characters, uniformly (bytes ≥ 248 are rejected so no character is favoured). */
function randomBase62(random: Random, length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random.bytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** CRC32 of the random part, as 6 base62 digits (62^6 > 2^32). */
export function keyChecksum(randomPart: string): string {
  let n = crc32(randomPart);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

export function newKeySecret(random: Random): NewKeySecret {
  const body = randomBase62(random, RANDOM_LENGTH);
  const secret = `${KEY_PREFIX}${body}${keyChecksum(body)}`;
  return { secret, prefix: secret.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKeySecret(secret) };
}

/** Whether a presented string can be a key at all: the current format with a valid checksum, or a legacy key. */
export function isWellFormedKeySecret(presented: string): boolean {
  if (LEGACY_FORMAT.test(presented)) return true;
  if (!NEW_FORMAT.test(presented)) return false;
  const body = presented.slice(KEY_PREFIX.length, KEY_PREFIX.length + RANDOM_LENGTH);
  return presented.endsWith(keyChecksum(body));
}

/**
 * A plain SHA-256 is enough here: the secret has 256 bits of entropy, so there is nothing for a
 * slow hash to protect, and authentication stays one indexed lookup.
 */
export function hashKeySecret(secret: string): string {
  return sha256Hex(secret);
}
