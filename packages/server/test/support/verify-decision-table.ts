/**
 * The verify decision table: scenario → decision, reason prefix and what is stored afterwards, the
 * oracle of the live verify path (verify-decisions.test.ts plays every row on both databases). A
 * new denial or a changed rule is a new or changed row here, reviewed like any contract change
 * (docs/api-contract.md#5-decisions lists the decisions in the order the verifier checks them).
 *
 * Each row: a name; the scenario's differences from BASE_SCENARIO (support/verify-scenarios.ts);
 * then what must follow: the decision; the start of its reason ('' for PRESENCE_VERIFIED); the
 * issued challenge's stored status and decision afterwards (an unknown id leaves the issued one
 * pending); the credential the stored challenge names (`mine`: the enrolled signer's, or `none`);
 * whether a receipt is stored for it; the enrolled credential's stored signCount afterwards.
 */
import type { Decision } from '@presence/contract';
import type { Scenario } from './verify-scenarios.js';

type Status = 'pending' | 'verified' | 'denied' | 'expired';

export type DecisionRow = [
  name: string,
  scenario: Partial<Scenario>,
  decision: Decision,
  reasonPrefix: string,
  status: Status,
  storedDecision: Decision | null,
  credential: 'mine' | 'none',
  receipt: boolean,
  signCount: number,
];

// prettier-ignore
export const DECISION_TABLE: readonly DecisionRow[] = [
  ['a fresh assertion from the enrolled credential', {},
    'PRESENCE_VERIFIED', '', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 100],
  ['a signCount below the stored one', { counter: 'regression' },
    'COUNTER_REGRESSION', 'signCount 7 does not exceed the stored', 'denied', 'COUNTER_REGRESSION', 'mine', false, 50],
  ['an authenticator without a counter, no subject', { counter: 'zero', subject: 'none' },
    'PRESENCE_VERIFIED', '', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 0],
  ['an authenticator without a counter', { counter: 'zero' },
    'PRESENCE_VERIFIED', '', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 0],
  ['an unknown challenge id', { challenge: 'missing' },
    'CHALLENGE_NOT_FOUND', 'no such challenge for this tenant', 'pending', null, 'none', false, 0],
  ['a challenge past its expiry', { challenge: 'expired' },
    'CHALLENGE_EXPIRED', 'the challenge expired before it was used', 'expired', 'CHALLENGE_EXPIRED', 'none', false, 0],
  ['a challenge already decided', { challenge: 'used' },
    'CHALLENGE_ALREADY_USED', 'the challenge was already used; read', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 60],
  ['a credential never enrolled', { credential: 'unknown' },
    'CREDENTIAL_NOT_FOUND', 'no enrolled credential has this id', 'denied', 'CREDENTIAL_NOT_FOUND', 'none', false, 0],
  ['a credential revoked after the challenge was issued', { credential: 'revoked' },
    'CREDENTIAL_REVOKED', 'the credential was revoked', 'denied', 'CREDENTIAL_REVOKED', 'mine', false, 0],
  ['another subject\'s challenge', { subject: 'other' },
    'CREDENTIAL_NOT_ALLOWED', 'the credential belongs to another', 'denied', 'CREDENTIAL_NOT_ALLOWED', 'mine', false, 0],
  ['a challenge for no subject', { subject: 'none' },
    'PRESENCE_VERIFIED', '', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 100],
  ['other challenge bytes signed', { mutation: 'challengeBytes' },
    'CHALLENGE_MISMATCH', 'not the issued challenge', 'denied', 'CHALLENGE_MISMATCH', 'mine', false, 0],
  ['an origin outside the policy', { mutation: 'origin' },
    'ORIGIN_NOT_ALLOWED', 'origin "https://evil.example"', 'denied', 'ORIGIN_NOT_ALLOWED', 'mine', false, 0],
  ['no user verification', { mutation: 'noUv' },
    'USER_NOT_VERIFIED', 'UV is required but not set', 'denied', 'USER_NOT_VERIFIED', 'mine', false, 0],
  ['no user presence', { mutation: 'noUp' },
    'USER_NOT_PRESENT', 'the UP flag is not set', 'denied', 'USER_NOT_PRESENT', 'mine', false, 0],
  ['a registration ceremony\'s clientData', { mutation: 'type' },
    'TYPE_MISMATCH', 'clientData type is "webauthn.create"', 'denied', 'TYPE_MISMATCH', 'mine', false, 0],
  ['another relying party\'s rpIdHash', { mutation: 'rpId' },
    'RP_ID_MISMATCH', 'rpIdHash is not SHA-256("app.example")', 'denied', 'RP_ID_MISMATCH', 'mine', false, 0],
  ['a cross-origin frame the policy does not allow', { mutation: 'crossOrigin' },
    'CROSS_ORIGIN_NOT_ALLOWED', 'crossOrigin is true but this relying', 'denied', 'CROSS_ORIGIN_NOT_ALLOWED', 'mine', false, 0],
  ['another user\'s handle', { mutation: 'wrongUserHandle' },
    'CREDENTIAL_NOT_ALLOWED', 'the user handle does not belong to the', 'denied', 'CREDENTIAL_NOT_ALLOWED', 'mine', false, 0],
  ['a signature that does not verify', { mutation: 'signature' },
    'SIGNATURE_INVALID', 'ES256 signature does not verify', 'denied', 'SIGNATURE_INVALID', 'mine', false, 0],
  ['a rawId that is not base64url', { mutation: 'rawIdMalformed' },
    'ASSERTION_MALFORMED', 'rawId is not base64url', 'denied', 'ASSERTION_MALFORMED', 'none', false, 0],
  ['expiry is checked before the signature', { challenge: 'expired', mutation: 'signature' },
    'CHALLENGE_EXPIRED', 'the challenge expired before it was used', 'expired', 'CHALLENGE_EXPIRED', 'none', false, 0],
  ['a decided challenge stays decided', { challenge: 'used', credential: 'revoked' },
    'CHALLENGE_ALREADY_USED', 'the challenge was already used; read', 'verified', 'PRESENCE_VERIFIED', 'mine', true, 60],
  ['revocation is checked before the signature', { credential: 'revoked', mutation: 'signature' },
    'CREDENTIAL_REVOKED', 'the credential was revoked', 'denied', 'CREDENTIAL_REVOKED', 'mine', false, 0],
  ['the subject is checked before the origin', { subject: 'other', mutation: 'origin' },
    'CREDENTIAL_NOT_ALLOWED', 'the credential belongs to another', 'denied', 'CREDENTIAL_NOT_ALLOWED', 'mine', false, 0],
  ['the challenge is looked up before the credential', { challenge: 'missing', credential: 'unknown' },
    'CHALLENGE_NOT_FOUND', 'no such challenge for this tenant', 'pending', null, 'none', false, 0],
  ['a malformed rawId before an unknown credential', { credential: 'unknown', mutation: 'rawIdMalformed' },
    'ASSERTION_MALFORMED', 'rawId is not base64url', 'denied', 'ASSERTION_MALFORMED', 'none', false, 0],
  ['user verification before the counter', { counter: 'regression', mutation: 'noUv' },
    'USER_NOT_VERIFIED', 'UV is required but not set', 'denied', 'USER_NOT_VERIFIED', 'mine', false, 50],
  ['revocation before the counter', { counter: 'regression', credential: 'revoked' },
    'CREDENTIAL_REVOKED', 'the credential was revoked', 'denied', 'CREDENTIAL_REVOKED', 'mine', false, 0],
];
