import { createHash } from 'node:crypto';
import { verifyRegistrationResponse } from '@simplewebauthn/server';
import {
  convertAAGUIDToString,
  cose,
  decodeAttestationObject,
  decodeCredentialPublicKey,
  parseAuthenticatorData,
} from '@simplewebauthn/server/helpers';
import { decodeBase64UrlLenient } from '../encoding.js';
import { algorithmName, importCoseKey } from './public-key-cache.js';
import { checkCrossOrigin, parseClientData } from './verify-assertion.js';

/** The RegistrationResponseJSON members the verifier reads; everything is re-checked at run time. */
export interface RegistrationResponseLike {
  id: string;
  rawId: string;
  type: string;
  response: { clientDataJSON: string; attestationObject: string; transports?: readonly string[] | undefined };
}

export interface RegistrationExpectations {
  rpId: string;
  allowedOrigins: readonly string[];
  expectedChallengeB64Url: string;
  requireUserVerification: boolean;
  allowedAlgorithms: readonly number[];
  /** Attestation statement formats accepted; empty or absent = any. */
  allowedFormats?: readonly string[] | undefined;
  /** Authenticator models (AAGUID, lowercase UUID) accepted; empty or absent = any. */
  aaguidAllowlist?: readonly string[] | undefined;
  /** Same cross-origin policy as for assertions; absent = top-level pages only. */
  allowCrossOrigin?: boolean | undefined;
  allowedTopOrigins?: readonly string[] | undefined;
}

export const REGISTRATION_FAILURES = [
  'RESPONSE_MALFORMED',
  'TYPE_MISMATCH',
  'CHALLENGE_MISMATCH',
  'ORIGIN_NOT_ALLOWED',
  'CROSS_ORIGIN_NOT_ALLOWED',
  'RP_ID_MISMATCH',
  'USER_NOT_PRESENT',
  'USER_NOT_VERIFIED',
  'BACKUP_FLAGS_INVALID',
  'CREDENTIAL_ID_TOO_LONG',
  'ALGORITHM_NOT_ALLOWED',
  'PUBLIC_KEY_INVALID',
  'FORMAT_NOT_ALLOWED',
  'AAGUID_NOT_ALLOWED',
  'ATTESTATION_INVALID',
] as const;
export type RegistrationFailure = (typeof REGISTRATION_FAILURES)[number];

export interface VerifiedRegistration {
  ok: true;
  /** base64url of the credential id inside the attested credential data. */
  credentialId: string;
  /** COSE_Key, base64url, byte-exact from authenticatorData. */
  publicKeyB64Url: string;
  algorithm: number;
  signCount: number;
  aaguid: string;
  attestationFormat: string;
  backupEligible: boolean;
  backedUp: boolean;
  transports: string[];
  attestationObjectB64Url: string;
  clientDataJSONB64Url: string;
  userVerified: boolean;
}

export interface RejectedRegistration {
  ok: false;
  reason: RegistrationFailure;
  detail: string;
}

export type RegistrationVerdict = VerifiedRegistration | RejectedRegistration;

/** A credential id longer than this "SHOULD cause the RP to fail this registration ceremony" (L3 §7.1). */
const MAX_CREDENTIAL_ID_BYTES = 1023;

interface DecodedRegistration {
  idB64Url: string;
  clientDataJSON: Buffer;
  attestationObject: Buffer;
  transports: string[];
}

/**
 * WebAuthn L3 §7.1 "Registering a New Credential". Client data, authenticator data and policy
 * (UV, BE/BS, algorithm, format, AAGUID) are checked here first so each refusal has a precise
 * code; attestation statements are verified by @simplewebauthn/server, never by hand. Trust
 * anchors for x5c chains are the library's SettingsService root certificates for the format.
 * Never throws: every library error becomes `{ ok: false }`.
 */
export async function verifyRegistration(input: {
  response: RegistrationResponseLike;
  expect: RegistrationExpectations;
}): Promise<RegistrationVerdict> {
  try {
    return await checkRegistration(input.response, input.expect);
  } catch (error) {
    return reject('RESPONSE_MALFORMED', `registration could not be processed: ${messageOf(error)}`);
  }
}

async function checkRegistration(json: unknown, rp: RegistrationExpectations): Promise<RegistrationVerdict> {
  const decoded = decodeResponse(json);
  if (typeof decoded === 'string') return reject('RESPONSE_MALFORMED', decoded);

  // "Let C … be the result of running an implementation-specific JSON parser on JSONtext", then
  // verify C.type is webauthn.create, C.challenge the one issued, C.origin an expected origin, and
  // crossOrigin / topOrigin against the relying party's iframe policy.
  const c = parseClientData(decoded.clientDataJSON);
  if (typeof c === 'string') return reject('RESPONSE_MALFORMED', c);
  if (c.type !== 'webauthn.create') return reject('TYPE_MISMATCH', 'clientData type is not webauthn.create');
  if (c.challenge !== rp.expectedChallengeB64Url) {
    return reject('CHALLENGE_MISMATCH', 'not the issued challenge');
  }
  if (!rp.allowedOrigins.includes(c.origin)) {
    return reject('ORIGIN_NOT_ALLOWED', `origin ${JSON.stringify(c.origin).slice(0, 200)} is not allowed`);
  }
  const crossOrigin = checkCrossOrigin(c, {
    allowCrossOrigin: rp.allowCrossOrigin ?? false,
    allowedTopOrigins: rp.allowedTopOrigins ?? [],
  });
  if (crossOrigin !== null) return reject('CROSS_ORIGIN_NOT_ALLOWED', crossOrigin);

  // Authenticator data (rpIdHash, UP, UV, BE/BS, alg) and the relying party's policy, before attestation.
  const policyProblem = checkAuthenticatorData(decoded.attestationObject, rp);
  if (policyProblem !== null) return policyProblem;

  // "Verify that attStmt is a correct attestation statement, conveying a valid attestation signature":
  // the library does it (repeating the checks above on the same bytes).
  return verifyAttestation(decoded, rp);
}

function decodeResponse(json: unknown): DecodedRegistration | string {
  if (!isRecord(json) || !isRecord(json.response)) return 'not a PublicKeyCredential with a response';
  if (json.type !== 'public-key') return 'credential type is not "public-key"';
  const id = decodeBase64UrlLenient(json.id);
  const rawId = decodeBase64UrlLenient(json.rawId);
  if (id === null || rawId === null || id.length === 0 || !id.equals(rawId)) {
    return 'id and rawId are not the same base64url value';
  }
  const clientDataJSON = decodeBase64UrlLenient(json.response.clientDataJSON);
  const attestationObject = decodeBase64UrlLenient(json.response.attestationObject);
  if (clientDataJSON === null || attestationObject === null) {
    return 'clientDataJSON or attestationObject is not base64url';
  }
  const transports = Array.isArray(json.response.transports) ? json.response.transports : [];
  const known = transports.filter((t): t is string => typeof t === 'string');
  return { idB64Url: id.toString('base64url'), clientDataJSON, attestationObject, transports: known };
}

function checkAuthenticatorData(
  attestationObject: Buffer,
  rp: RegistrationExpectations,
): RejectedRegistration | null {
  const attestation = decodeAttestationObject(new Uint8Array(attestationObject));
  const fmt: unknown = attestation.get('fmt');
  const authData: unknown = attestation.get('authData');
  if (typeof fmt !== 'string' || !(authData instanceof Uint8Array)) {
    return reject('RESPONSE_MALFORMED', 'attestationObject lacks fmt or authData');
  }
  const parsed = parseAuthenticatorData(new Uint8Array(authData));
  const { flags, credentialID, credentialPublicKey, aaguid } = parsed;
  // "Verify that the rpIdHash in authData is the SHA-256 hash of the RP ID expected by the Relying Party."
  if (!Buffer.from(parsed.rpIdHash).equals(createHash('sha256').update(rp.rpId, 'utf8').digest())) {
    return reject('RP_ID_MISMATCH', `rpIdHash is not SHA-256(${JSON.stringify(rp.rpId)})`);
  }
  // UP; UV when required; "If the BE bit … is not set, verify that the BS bit is not set."
  if (!flags.up) return reject('USER_NOT_PRESENT', 'the UP flag is not set');
  if (rp.requireUserVerification && !flags.uv) {
    return reject('USER_NOT_VERIFIED', 'UV is required but not set');
  }
  if (flags.bs && !flags.be) return reject('BACKUP_FLAGS_INVALID', 'BS (backed up) is set without BE');
  if (!flags.at || credentialID === undefined || credentialPublicKey === undefined || aaguid === undefined) {
    return reject('RESPONSE_MALFORMED', 'authenticatorData carries no attested credential data');
  }
  if (credentialID.length > MAX_CREDENTIAL_ID_BYTES) {
    return reject(
      'CREDENTIAL_ID_TOO_LONG',
      `credential id is ${credentialID.length} bytes; at most ${MAX_CREDENTIAL_ID_BYTES}`,
    );
  }
  // "Verify that the "alg" parameter in the credential public key in authData matches the
  // alg attribute of one of the items in pkOptions.pubKeyCredParams."
  return checkPolicy(fmt, credentialPublicKey, convertAAGUIDToString(aaguid), rp);
}

function checkPolicy(fmt: string, publicKey: Uint8Array, aaguid: string, rp: RegistrationExpectations) {
  const alg: unknown = decodeCredentialPublicKey(new Uint8Array(publicKey)).get(cose.COSEKEYS.alg);
  if (typeof alg !== 'number' || !rp.allowedAlgorithms.includes(alg)) {
    const name = typeof alg === 'number' ? `${algorithmName(alg)} (${alg})` : String(alg);
    return reject('ALGORITHM_NOT_ALLOWED', `credential algorithm ${name} is not allowed`);
  }
  const usable = importCoseKey(Buffer.from(publicKey).toString('base64url'));
  if (!usable.ok) return reject('PUBLIC_KEY_INVALID', usable.detail);
  if (rp.allowedFormats !== undefined && rp.allowedFormats.length > 0 && !rp.allowedFormats.includes(fmt)) {
    return reject('FORMAT_NOT_ALLOWED', `attestation format ${JSON.stringify(fmt)} is not allowed`);
  }
  const allowlist = rp.aaguidAllowlist?.map((entry) => entry.toLowerCase()) ?? [];
  if (allowlist.length > 0 && !allowlist.includes(aaguid.toLowerCase())) {
    return reject('AAGUID_NOT_ALLOWED', `authenticator model ${aaguid} is not allowed`);
  }
  return null;
}

async function verifyAttestation(
  decoded: DecodedRegistration,
  rp: RegistrationExpectations,
): Promise<RegistrationVerdict> {
  const attestationObjectB64Url = decoded.attestationObject.toString('base64url');
  const clientDataJSONB64Url = decoded.clientDataJSON.toString('base64url');
  let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    result = await verifyRegistrationResponse({
      response: {
        id: decoded.idB64Url,
        rawId: decoded.idB64Url,
        type: 'public-key',
        response: { clientDataJSON: clientDataJSONB64Url, attestationObject: attestationObjectB64Url },
        clientExtensionResults: {},
      },
      expectedChallenge: rp.expectedChallengeB64Url,
      expectedOrigin: [...rp.allowedOrigins],
      expectedRPID: rp.rpId,
      requireUserPresence: true,
      requireUserVerification: rp.requireUserVerification,
      supportedAlgorithmIDs: [...rp.allowedAlgorithms],
    });
  } catch (error) {
    return reject('ATTESTATION_INVALID', messageOf(error));
  }
  const info = result.registrationInfo;
  if (!result.verified || info === undefined) {
    return reject('ATTESTATION_INVALID', 'the attestation statement does not verify');
  }
  const publicKeyB64Url = Buffer.from(info.credential.publicKey).toString('base64url');
  const key = importCoseKey(publicKeyB64Url);
  if (!key.ok) return reject('PUBLIC_KEY_INVALID', key.detail);
  return {
    ok: true,
    credentialId: info.credential.id,
    publicKeyB64Url,
    algorithm: key.key.algorithm,
    signCount: info.credential.counter,
    aaguid: info.aaguid,
    attestationFormat: info.fmt,
    backupEligible: info.credentialDeviceType === 'multiDevice',
    backedUp: info.credentialBackedUp,
    transports: decoded.transports,
    attestationObjectB64Url,
    clientDataJSONB64Url,
    userVerified: info.userVerified,
  };
}

function reject(reason: RegistrationFailure, detail: string): RejectedRegistration {
  return { ok: false, reason, detail };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
