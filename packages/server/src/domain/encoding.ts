import { createHash } from 'node:crypto';

export function sha256(data: Buffer | Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

export function sha256Hex(data: Buffer | Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

export function toB64Url(bytes: Buffer | Uint8Array): string {
  return Buffer.from(bytes).toString('base64url');
}

export function fromB64Url(text: string): Buffer {
  return Buffer.from(text, 'base64url');
}

export { canonicalJson } from '@presence/sdk';

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

const BASE64_ANY = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Decodes base64url, also accepting '=' padding and the standard alphabet (real authenticator
 * captures use both). Returns undefined for anything else.
 */
export function decodeBase64Lenient(text: string): Buffer | undefined {
  if (!BASE64_ANY.test(text)) return undefined;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return undefined;
  return Buffer.from(body.replaceAll('+', '-').replaceAll('/', '_'), 'base64url');
}
