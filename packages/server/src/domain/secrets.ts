import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Random } from './ports.js';

/**
 * Secrets at rest (signing keys, webhook secrets) are sealed with AES-256-GCM under the master
 * key from configuration. Format: `v1.<iv b64url>.<ciphertext b64url>.<tag b64url>`; the
 * associated data names what the secret is for, so a sealed value cannot be moved to another row.
 */
export interface SecretBox {
  seal(plaintext: Buffer, context: string): string;
  /** Opens with the current key, or during a rotation with the previous one. */
  open(sealed: string, context: string): Buffer;
  /** Whether the current key (not only the previous one) opens it. */
  isCurrent(sealed: string, context: string): boolean;
}

/**
 * `previousKey` is set only while PRESENCE_MASTER_KEY is being rotated: new seals always use the
 * current key, and values still sealed under the previous one open until they are re-sealed.
 */
export function createSecretBox(masterKey: Buffer, random: Random, previousKey?: Buffer): SecretBox {
  const current = createSingleKeyBox(masterKey, random);
  if (previousKey === undefined) return current;
  const previous = createSingleKeyBox(previousKey, random);
  return {
    seal: current.seal,
    open(sealed, context) {
      try {
        return current.open(sealed, context);
      } catch (error) {
        try {
          return previous.open(sealed, context);
        } catch {
          throw error;
        }
      }
    },
    isCurrent: current.isCurrent,
  };
}

function createSingleKeyBox(masterKey: Buffer, random: Random): SecretBox {
  if (masterKey.length !== 32) throw new RangeError('the master key must be 32 bytes');
  const box: SecretBox = {
    seal(plaintext, context) {
      const iv = random.bytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return ['v1', iv, body, cipher.getAuthTag()]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [version, iv, body, tag] = sealed.split('.');
      if (version !== 'v1' || iv === undefined || body === undefined || tag === undefined) {
        throw new Error('sealed secret has an unknown format');
      }
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]);
    },
    isCurrent(sealed, context) {
      try {
        box.open(sealed, context);
        return true;
      } catch {
        return false;
      }
    },
  };
  return box;
}
