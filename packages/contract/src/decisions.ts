/** The only success. Anything else is a denial: callers must not act on it. */
export const PRESENCE_VERIFIED = 'PRESENCE_VERIFIED' as const;

/** Denial decisions, in the order the verifier checks them (docs/api-contract.md#5-decisions). */
export const DENIALS = [
  'CHALLENGE_NOT_FOUND',
  'CHALLENGE_EXPIRED',
  'CHALLENGE_ALREADY_USED',
  'CREDENTIAL_NOT_FOUND',
  'CREDENTIAL_REVOKED',
  'CREDENTIAL_NOT_ALLOWED',
  'ASSERTION_MALFORMED',
  'TYPE_MISMATCH',
  'CHALLENGE_MISMATCH',
  'ORIGIN_NOT_ALLOWED',
  'CROSS_ORIGIN_NOT_ALLOWED',
  'RP_ID_MISMATCH',
  'USER_NOT_PRESENT',
  'USER_NOT_VERIFIED',
  'SIGNATURE_INVALID',
  'COUNTER_REGRESSION',
] as const;

export type Denial = (typeof DENIALS)[number];
export type Decision = typeof PRESENCE_VERIFIED | Denial;
export const DECISIONS: readonly Decision[] = [PRESENCE_VERIFIED, ...DENIALS];

export type ChallengeStatus = 'pending' | 'verified' | 'denied' | 'expired';
