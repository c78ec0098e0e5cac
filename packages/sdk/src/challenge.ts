import { createHash } from 'node:crypto';

/** Domain-separation label of the challenge construction (docs/api-contract.md#2-the-action-is-inside-the-signed-bytes). */
export const CHALLENGE_LABEL = 'presence/v1/challenge';

/**
 * The WebAuthn challenge of a presence check:
 * `SHA-256("presence/v1/challenge" || 0x00 || actionHash[32] || nonce[32])`.
 * An auditor recomputes it from the receipt's action hash and nonce; the authenticator's
 * signature covers clientDataJSON, which contains it, so the signature covers the action.
 */
export function deriveChallenge(actionHash: Uint8Array, nonce: Uint8Array): Buffer {
  if (actionHash.length !== 32) throw new RangeError('actionHash must be 32 bytes');
  if (nonce.length !== 32) throw new RangeError('nonce must be 32 bytes');
  return createHash('sha256')
    .update(CHALLENGE_LABEL, 'utf8')
    .update(Buffer.from([0]))
    .update(actionHash)
    .update(nonce)
    .digest();
}
