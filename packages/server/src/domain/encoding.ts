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

const BASE64_TEXT = /^[A-Za-z0-9_+/-]*={0,2}$/;

/**
 * base64url → bytes, tolerating '=' padding and the standard alphabet (real authenticator vectors
 * use both). Anything else — other characters, impossible lengths, misplaced padding — is null,
 * never silently skipped the way Buffer.from(…, 'base64') would.
 */
export function decodeBase64UrlLenient(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !BASE64_TEXT.test(text)) return null;
  const body = text.replace(/=+$/, '');
  if (body.length % 4 === 1) return null;
  if (body.length !== text.length && text.length % 4 !== 0) return null;
  return Buffer.from(body, 'base64');
}
