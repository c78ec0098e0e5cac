import type { Random } from '../ports.js';
import { sha256Hex } from '../encoding.js';

/**
 * A link token (`/approve/<token>`, `/enroll/<token>`): 256 random bits as 43 base64url
 * characters. Only its SHA-256 is stored, so a database reader cannot use a link.
 */
export function newLinkToken(random: Random): { token: string; tokenHash: string } {
  const token = random.bytes(32).toString('base64url');
  return { token, tokenHash: hashLinkToken(token) };
}

export function hashLinkToken(token: string): string {
  return sha256Hex(`presence/v1/link-token\u0000${token}`);
}

/** No 0/O, 1/I/L or U: a code read aloud or from a phone screen cannot be mistaken. */
export const BINDING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTVWXYZ23456789';

/** Six characters from BINDING_CODE_ALPHABET, uniformly (rejection sampling of random bytes). */
export function newBindingCode(random: Random): string {
  const size = BINDING_CODE_ALPHABET.length;
  const ceiling = 256 - (256 % size);
  let code = '';
  while (code.length < 6) {
    for (const byte of random.bytes(12)) {
      if (byte < ceiling && code.length < 6) code += BINDING_CODE_ALPHABET[byte % size];
    }
  }
  return code;
}
