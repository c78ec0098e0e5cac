import type { Random } from '../ports.js';
import { sha256Hex } from '../encoding.js';

/** `prs_` + 32 random bytes (256 bits) in base64url. */
export const KEY_PREFIX = 'prs_';
const SHOWN_PREFIX_LENGTH = 12;

export interface NewKeySecret {
  secret: string;
  prefix: string;
  keyHash: string;
}

export function newKeySecret(random: Random): NewKeySecret {
  const secret = KEY_PREFIX + random.bytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, SHOWN_PREFIX_LENGTH), keyHash: hashKeySecret(secret) };
}

/**
 * A plain SHA-256 is enough here: the secret has 256 bits of entropy, so there is nothing for a
 * slow hash to protect, and authentication stays one indexed lookup.
 */
export function hashKeySecret(secret: string): string {
  return sha256Hex(secret);
}
