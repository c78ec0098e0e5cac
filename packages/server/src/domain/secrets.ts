import { createCipheriv, createDecipheriv } from 'node:crypto';
import type { Random } from './ports.js';

/**
 * Secrets at rest (signing keys, webhook secrets) are sealed with AES-256-GCM under the master
 * key from configuration. Format: `v1.<iv b64url>.<ciphertext b64url>.<tag b64url>`; the
 * associated data names what the secret is for, so a sealed value cannot be moved to another row.
 */
export interface SecretBox {
  seal(plaintext: Buffer, context: string): string;
  open(sealed: string, context: string): Buffer;
}

export function createSecretBox(masterKey: Buffer, random: Random): SecretBox {
  if (masterKey.length !== 32) throw new RangeError('the master key must be 32 bytes');
  return {
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
  };
}
