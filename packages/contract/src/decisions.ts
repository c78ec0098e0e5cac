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

/**
 * What the caller (or the person) should do about each denial: the `remedy` a verify response
 * carries beside the decision, like the error catalogue's remedies for problems.
 */
export const DENIAL_REMEDIES: Readonly<Record<Denial, string>> = {
  CHALLENGE_NOT_FOUND:
    'Create a challenge with POST /v1/presence/challenge in this tenant (with a key of this tenant) and verify against its challengeId.',
  CHALLENGE_EXPIRED:
    "Create a new challenge and ask the person again; raise the policy's challengeTtlSeconds (up to 600) if people need longer.",
  CHALLENGE_ALREADY_USED:
    'A challenge takes one decision: read it with GET /v1/presence/challenges/{challengeId}, or create a new challenge for a new attempt.',
  CREDENTIAL_NOT_FOUND:
    'The passkey used is not enrolled in this tenant: enroll it for the subject (POST /v1/presence/credentials/options), or have the person pick the enrolled one.',
  CREDENTIAL_REVOKED:
    'The passkey was revoked: have the person use another enrolled passkey, or enroll a new one.',
  CREDENTIAL_NOT_ALLOWED:
    "The passkey belongs to another subject than the challenge's: create the challenge for the person who signs, or have them use their own passkey.",
  ASSERTION_MALFORMED:
    "Send the browser's navigator.credentials.get() result unchanged (e.g. startAuthentication() of @simplewebauthn/browser), base64url fields intact.",
  TYPE_MISMATCH:
    'Send an authentication assertion (navigator.credentials.get), not a registration (navigator.credentials.create).',
  CHALLENGE_MISMATCH:
    "Pass the challenge's own publicKey options (its challenge bytes) to the browser, and verify against that same challengeId.",
  ORIGIN_NOT_ALLOWED:
    "Add the page's origin (scheme, host and port) to the policy's allowedOrigins: the console's Policy page, or GET /v1/policy then PUT it back with the origin added.",
  CROSS_ORIGIN_NOT_ALLOWED:
    "The ceremony ran in a cross-origin iframe: run it top-level, or set the policy's allowCrossOrigin and list the top origin in allowedTopOrigins.",
  RP_ID_MISMATCH:
    "The passkey was made for another rpId: the policy's rpId must be the page's host or a registrable suffix of it, and the passkey enrolled under it.",
  USER_NOT_PRESENT:
    'The authenticator did not report user presence: ask the person to touch or confirm on their authenticator.',
  USER_NOT_VERIFIED:
    'The authenticator did not verify the person (PIN, fingerprint, face): use userVerification "required" in the browser call and an authenticator that can.',
  SIGNATURE_INVALID:
    'The signature does not match the enrolled key: do not alter the assertion in transit; if it persists, revoke the passkey and enroll it again.',
  COUNTER_REGRESSION:
    'The signature counter went backwards, a sign of a cloned authenticator: investigate, revoke the passkey, and enroll a new one (or set the policy counter rule to ignore for authenticators known to reset it).',
};
