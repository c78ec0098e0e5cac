import { createHash } from 'node:crypto';
import type { Denial } from '@presence/contract';
import {
  parseAssertionAuthenticatorData,
  parseClientDataJSON,
  type AuthenticatorFlags,
  type ClientData,
} from '@presence/sdk/node';
import { decodeBase64UrlLenient } from '../encoding.js';
import { algorithmName, verifySignature, type PublicKeyCache } from './public-key-cache.js';

/** The AuthenticationResponseJSON members the verifier reads; everything is re-checked at run time. */
export interface AssertionResponseLike {
  id: string;
  rawId: string;
  type: string;
  response: {
    clientDataJSON: string;
    authenticatorData: string;
    signature: string;
    userHandle?: string | null | undefined;
  };
}

export interface AssertionCredential {
  /** base64url credential id as enrolled. */
  credentialId: string;
  /** COSE_Key, base64url. */
  publicKeyB64Url: string;
  signCount: number;
  /** BE at enrollment; when known, the BE flag must not change (L3 §7.2 step 19). */
  backupEligible?: boolean | undefined;
}

export interface AssertionExpectations {
  rpId: string;
  allowedOrigins: readonly string[];
  /** The challenge exactly as it must appear in clientDataJSON. */
  expectedChallengeB64Url: string;
  requireUserVerification: boolean;
  allowCrossOrigin: boolean;
  allowedTopOrigins: readonly string[];
  /** COSE algorithm ids the policy accepts; undefined = every algorithm the verifier supports. */
  allowedAlgorithms?: readonly number[] | undefined;
  counterRule: 'reject-regression' | 'ignore';
}

export interface VerifiedAssertion {
  ok: true;
  flags: AuthenticatorFlags;
  signCount: number;
  rpIdHashHex: string;
  origin: string;
  topOrigin: string | null;
  crossOrigin: boolean;
  clientDataType: string;
  authenticatorData: Buffer;
  clientDataJSON: Buffer;
  signature: Buffer;
  userHandle: Buffer | null;
  algorithm: number;
}

export type AssertionDenial = Extract<
  Denial,
  | 'CREDENTIAL_NOT_ALLOWED'
  | 'ASSERTION_MALFORMED'
  | 'TYPE_MISMATCH'
  | 'CHALLENGE_MISMATCH'
  | 'ORIGIN_NOT_ALLOWED'
  | 'CROSS_ORIGIN_NOT_ALLOWED'
  | 'RP_ID_MISMATCH'
  | 'USER_NOT_PRESENT'
  | 'USER_NOT_VERIFIED'
  | 'SIGNATURE_INVALID'
  | 'COUNTER_REGRESSION'
>;

export interface DeniedAssertion {
  ok: false;
  reason: AssertionDenial;
  detail: string;
}

export type AssertionVerdict = VerifiedAssertion | DeniedAssertion;

export interface VerifyAssertionInput {
  response: AssertionResponseLike;
  credential: AssertionCredential;
  expect: AssertionExpectations;
}

/**
 * WebAuthn Level 3 §7.2 "Verifying an Authentication Assertion", steps 3-23, for one credential
 * the caller already looked up. Synchronous and pure apart from the key cache. Never throws:
 * bytes that cannot be parsed are ASSERTION_MALFORMED. Checks run in the spec's order, so data
 * that passes steps 3-21 but carries a bad signature is always SIGNATURE_INVALID.
 */
export function verifyAssertion(
  deps: { keys: PublicKeyCache },
  input: VerifyAssertionInput,
): AssertionVerdict {
  try {
    return checkAssertion(deps, input);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return deny('ASSERTION_MALFORMED', `assertion could not be processed: ${message}`);
  }
}

function checkAssertion(deps: { keys: PublicKeyCache }, input: VerifyAssertionInput): AssertionVerdict {
  const { credential, expect: rp } = input;
  const credentialJson: unknown = input.response;

  // Step 3. "If response is not an instance of AuthenticatorAssertionResponse, abort the ceremony."
  if (!isRecord(credentialJson) || !isRecord(credentialJson.response)) {
    return deny('ASSERTION_MALFORMED', 'assertion is not a PublicKeyCredential with a response object');
  }
  if (credentialJson.type !== 'public-key') return deny('ASSERTION_MALFORMED', 'type is not "public-key"');
  const response = credentialJson.response;

  // Steps 5-6. "verify that credential.id identifies one of the public key credentials listed in
  // allowCredentials" / "… whose id equals credential.rawId". Compared as bytes.
  const id = decodeBase64UrlLenient(credentialJson.id);
  const rawId = decodeBase64UrlLenient(credentialJson.rawId);
  if (id === null || rawId === null) return deny('ASSERTION_MALFORMED', 'id or rawId is not base64url');
  if (!id.equals(rawId)) return deny('ASSERTION_MALFORMED', 'credential id and rawId differ');
  const enrolledId = decodeBase64UrlLenient(credential.credentialId);
  if (enrolledId === null || !id.equals(enrolledId)) {
    return deny('CREDENTIAL_NOT_ALLOWED', 'the assertion was made with a different credential');
  }

  // Step 7. "Let cData, authData and sig denote the value of response's clientDataJSON,
  // authenticatorData, and signature respectively."
  const cData = decodeBase64UrlLenient(response.clientDataJSON);
  const authData = decodeBase64UrlLenient(response.authenticatorData);
  const sig = decodeBase64UrlLenient(response.signature);
  if (cData === null || authData === null || sig === null) {
    return deny('ASSERTION_MALFORMED', 'clientDataJSON, authenticatorData or signature is not base64url');
  }
  const userHandle = response.userHandle == null ? null : decodeBase64UrlLenient(response.userHandle);
  if (response.userHandle != null && userHandle === null) {
    return deny('ASSERTION_MALFORMED', 'userHandle is not base64url');
  }

  // Steps 8-9. "Let JSONtext be the result of running UTF-8 decode on the value of cData." /
  // "Let C … be the result of running an implementation-specific JSON parser on JSONtext."
  const c = parseClientData(cData);
  if (typeof c === 'string') return deny('ASSERTION_MALFORMED', c);

  // Step 10. "Verify that the value of C.type is the string webauthn.get."
  if (c.type !== 'webauthn.get') return deny('TYPE_MISMATCH', `clientData type is ${quote(c.type)}`);

  // Step 11. "Verify that the value of C.challenge equals the base64url encoding of pkOptions.challenge."
  if (c.challenge !== rp.expectedChallengeB64Url) {
    return deny('CHALLENGE_MISMATCH', 'not the issued challenge');
  }

  // Step 12. "Verify that the value of C.origin is an origin expected by the Relying Party."
  if (!rp.allowedOrigins.includes(c.origin)) return deny('ORIGIN_NOT_ALLOWED', `origin ${quote(c.origin)}`);

  // Steps 13-14. "If C.crossOrigin is present and set to true, verify that the Relying Party expects
  // this credential to be used within an iframe that is not same-origin with its ancestors." /
  // "If C.topOrigin is present: … verify that the value of C.topOrigin matches the origin of a page
  // that the Relying Party expects to be sub-framed within."
  const crossOriginProblem = checkCrossOrigin(c, rp);
  if (crossOriginProblem !== null) return deny('CROSS_ORIGIN_NOT_ALLOWED', crossOriginProblem);

  // §6.1 authenticator data layout: rpIdHash(32) flags(1) signCount(4) [extensions]. An assertion
  // carries no attested credential data (AT), and ED promises extension bytes: one CBOR map.
  const header = parseAssertionAuthenticatorData(authData);
  if (typeof header === 'string') return deny('ASSERTION_MALFORMED', header);
  const { flags } = header;

  // Step 15. "Verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the Relying Party."
  if (!sha256(Buffer.from(rp.rpId, 'utf8')).equals(header.rpIdHash)) {
    return deny('RP_ID_MISMATCH', `rpIdHash is not SHA-256(${quote(rp.rpId)})`);
  }

  // Step 16. "Verify that the UP bit of the flags in authData is set."
  if (!flags.UP) return deny('USER_NOT_PRESENT', 'the UP flag is not set');

  // Step 17. "If user verification was determined to be required, verify that the UV bit of the
  // flags in authData is set."
  if (rp.requireUserVerification && !flags.UV) return deny('USER_NOT_VERIFIED', 'UV is required but not set');

  // Step 18. "If the BE bit of the flags in authData is not set, verify that the BS bit is not set."
  if (flags.BS && !flags.BE) return deny('ASSERTION_MALFORMED', 'BS (backed up) is set without BE');

  // Step 19. "If credentialRecord.backupEligible is set, verify that currentBe is set. If
  // credentialRecord.backupEligible is not set, verify that currentBe is not set."
  if (credential.backupEligible !== undefined && credential.backupEligible !== flags.BE) {
    return deny('ASSERTION_MALFORMED', `BE is ${flags.BE}, at enrollment ${credential.backupEligible}`);
  }

  // Step 20 (extension outputs): none are requested, so none are interpreted.

  // Step 21. "Let hash be the result of computing a hash over the cData using SHA-256."
  const hash = sha256(cData);

  // Step 22. "Using credentialRecord.publicKey, verify that sig is a valid signature over the binary
  // concatenation of authData and hash."
  const imported = deps.keys.get(credential.publicKeyB64Url);
  if (!imported.ok) return deny('SIGNATURE_INVALID', `unusable credential key: ${imported.detail}`);
  const { algorithm, keyObject } = imported.key;
  if (rp.allowedAlgorithms !== undefined && !rp.allowedAlgorithms.includes(algorithm)) {
    return deny(
      'SIGNATURE_INVALID',
      `${algorithmName(algorithm)} (${algorithm}) is not an allowed algorithm`,
    );
  }
  const signature = verifySignature(algorithm, keyObject, Buffer.concat([authData, hash]), sig);
  if (!signature.valid) return deny('SIGNATURE_INVALID', signature.detail);

  // Step 23. "If authData.signCount is nonzero or credentialRecord.signCount is nonzero, …
  // [if it] is less than or equal to credentialRecord.signCount: This is a signal … that the
  // authenticator may be cloned." Policy 'reject-regression' turns the signal into a denial.
  const { signCount } = header;
  const stored = credential.signCount;
  const counted = signCount !== 0 || stored !== 0;
  if (rp.counterRule === 'reject-regression' && counted && signCount <= stored) {
    return deny('COUNTER_REGRESSION', `signCount ${signCount} does not exceed the stored ${stored}`);
  }

  return {
    ok: true,
    flags,
    signCount,
    rpIdHashHex: Buffer.from(header.rpIdHash).toString('hex'),
    origin: c.origin,
    topOrigin: c.topOrigin,
    crossOrigin: c.crossOrigin,
    clientDataType: c.type,
    authenticatorData: authData,
    clientDataJSON: cData,
    signature: sig,
    userHandle,
    algorithm,
  };
}

/** Strict client data and authenticator data parsing: the SDK's, shared with the offline verifier. */
export const parseClientData = parseClientDataJSON;
export type { AuthenticatorFlags, ClientData };

/** The cross-origin policy shared by registration and authentication; null when acceptable. */
export function checkCrossOrigin(
  c: ClientData,
  rp: { allowCrossOrigin: boolean; allowedTopOrigins: readonly string[] },
): string | null {
  if (c.crossOrigin && !rp.allowCrossOrigin) {
    return 'crossOrigin is true but this relying party does not allow cross-origin use';
  }
  if (c.topOrigin === null) return null;
  // §5.8.1: topOrigin is only set when crossOrigin is true.
  if (!c.crossOrigin) return `topOrigin ${quote(c.topOrigin)} is present although crossOrigin is not true`;
  if (!rp.allowedTopOrigins.includes(c.topOrigin)) {
    return `topOrigin ${quote(c.topOrigin)} is not an allowed top origin`;
  }
  return null;
}

function deny(reason: AssertionDenial, detail: string): DeniedAssertion {
  return { ok: false, reason, detail };
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Attacker-supplied text in a detail: JSON-quoted and capped. */
function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
