import { sha256 } from '../encoding.js';

/**
 * The WebAuthn user handle of a subject: stable for one subject of one tenant, and revealing
 * nothing about either.
 */
export function userHandleFor(tenantId: string, subject: string): Buffer {
  return sha256(`presence/v1/user\u0000${tenantId}\u0000${subject}`);
}
