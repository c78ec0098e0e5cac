import type { VerifyResult } from './wire-types.js';

/** A verify result that allows the action: the only success, with its receipt. */
export type VerifiedResult = VerifyResult & {
  decision: 'PRESENCE_VERIFIED';
  receiptId: string;
  receiptHashHex: string;
};

/**
 * The rule of the gate: execute the action only when this is true. Every other decision,
 * including ones added in later versions, is a denial.
 */
export function isPresenceVerified(result: VerifyResult): result is VerifiedResult {
  return (
    result.decision === 'PRESENCE_VERIFIED' &&
    typeof result.receiptId === 'string' &&
    typeof result.receiptHashHex === 'string'
  );
}
