/**
 * FROZEN: the verification rules of `presence.receipt.v1` (ADR 0008, docs/evidence.md §4 and §10).
 * Every v1 receipt ever issued must keep passing these checks; the committed fixtures in
 * packages/sdk/test/fixtures/receipt-v1/ prove it in every build. Do not change a rule here: a new
 * rule belongs to a new receipt version with its own module, dispatched by verify-receipt.ts.
 * (The strict client-data and authenticator-data parsing of issue 9 §3 was made part of v1 before
 * it was frozen; the parsers are shared with the online verifier.)
 */
import { timingSafeEqual } from 'node:crypto';
import { ReceiptV1, type ServiceKey } from '#contract';
import { Value } from '@sinclair/typebox/value';
import { deriveChallenge } from '../challenge.js';
import { checkServiceSignature } from '../check-service-signature.js';
import { importCoseKey, verifyCoseSignature } from '../cose-key.js';
import { canonicalOrNull, NOT_I_JSON } from '../canonical-json.js';
import { sha256 } from '../encoding.js';
import { registerDateTimeFormat } from '../pack/date-time-format.js';
import {
  fail,
  pass,
  report,
  type ReceiptCheck,
  type ReceiptReport,
  type SignedReceiptInput,
} from '../receipt-report.js';
import { parseAssertionAuthenticatorData } from '../webauthn/authenticator-data.js';
import { parseClientDataJSON, type ClientData } from '../webauthn/client-data.js';

type Fields = Record<string, unknown>;

/**
 * Checks one receipt offline, trusting nothing but the service public keys you pass (pinned, or
 * read from /.well-known/presence/keys.json): hash, service signature, key validity at issue
 * time, challenge recomputed from action hash and nonce, client data, rpId hash, flags, and the
 * authenticator's signature with the credential key the receipt carries.
 */
export function verifyReceiptV1(
  input: SignedReceiptInput,
  options: { keys: readonly ServiceKey[] },
): ReceiptReport {
  const checks: ReceiptReport['checks'] = {};
  const r = input.receipt as Fields;
  registerDateTimeFormat();
  const schemaError = Value.Check(ReceiptV1, r) ? null : Value.Errors(ReceiptV1, r).First();
  checks.schema =
    schemaError === null
      ? pass('a presence.receipt.v1 object: every field present, well-formed, nothing else')
      : fail(
          `not a valid presence.receipt.v1 object: ${schemaError?.path || '/'} ${schemaError?.message ?? ''}`,
        );
  if (!checks.schema.ok) return report(checks, null, null);
  const text = canonicalOrNull(r);
  if (text === null) {
    checks.schema = fail(`not a valid presence.receipt.v1 object: ${NOT_I_JSON}`);
    return report(checks, null, null);
  }
  const hashHex = sha256(text).toString('hex');
  checks.hash =
    input.receiptHashHex === undefined
      ? pass(`SHA-256 of the canonical receipt is ${hashHex} (no expected hash given)`)
      : input.receiptHashHex === hashHex
        ? pass('receiptHashHex matches the canonical bytes')
        : fail(`expected ${input.receiptHashHex}, computed ${hashHex}`);
  Object.assign(
    checks,
    checkServiceSignature(Buffer.from(text, 'utf8'), String(r.issuedAt), input.signature, options.keys),
  );
  Object.assign(checks, checkAssertion(r));
  return report(checks, r.receiptId as string, hashHex);
}

function checkAssertion(r: Fields): ReceiptReport['checks'] {
  const checks: ReceiptReport['checks'] = {};
  const b = (f: string) => Buffer.from(String(r[f]), 'base64url');
  const challenge = deriveChallenge(Buffer.from(String(r.actionHashHex), 'hex'), b('challengeNonceB64Url'));
  const clientDataBytes = b('clientDataJSONB64Url');
  // The same strict parser as the online verifier: no BOM, no member twice, UTF-8 JSON.
  const parsed = parseClientDataJSON(clientDataBytes);
  const clientData: Partial<ClientData> = typeof parsed === 'string' ? {} : parsed;
  if (typeof parsed === 'string') checks.clientData = fail(parsed);
  checks.challengeBinding =
    challenge.toString('base64url') === r.challengeB64Url && clientData.challenge === r.challengeB64Url
      ? pass('challenge = SHA-256(label || 0x00 || actionHash || nonce), and clientDataJSON carries it')
      : fail(
          'the challenge does not commit to this action hash and nonce, or clientDataJSON carries another',
        );
  checks.clientData ??=
    clientData.type === 'webauthn.get' &&
    clientData.origin === r.origin &&
    clientData.crossOrigin === (r.crossOrigin === true)
      ? pass(`webauthn.get from ${String(r.origin)}`)
      : fail('clientDataJSON type, origin or crossOrigin differ from the receipt');
  const authData = b('authenticatorDataB64Url');
  checks.rpIdHash =
    authData.length >= 37 && equal(authData.subarray(0, 32), sha256(String(r.rpId)))
      ? pass(`authenticatorData is for ${String(r.rpId)}`)
      : fail('rpIdHash in authenticatorData is not SHA-256(rpId)');
  checks.flags = checkFlags(authData, r);
  checks.webauthnSignature = checkWebAuthnSignature(r, authData, clientDataBytes);
  return checks;
}

function checkFlags(authData: Buffer, r: Fields): ReceiptCheck {
  // The same structural rules as the online verifier: no AT, ED followed by one CBOR map.
  const parsed = parseAssertionAuthenticatorData(authData);
  if (typeof parsed === 'string') return fail(parsed);
  const { UP, UV, BE, BS } = parsed.flags;
  const actual = { UP, UV, BE, BS };
  const claimed = (r.flags ?? {}) as Fields;
  const same = (Object.keys(actual) as (keyof typeof actual)[]).every((k) => claimed[k] === actual[k]);
  if (!actual.UP || !actual.UV) return fail('user presence and user verification must both be set');
  if (actual.BS && !actual.BE) return fail('BS is set without BE');
  if (!same || parsed.signCount !== r.signCount)
    return fail('flags or signCount differ from authenticatorData');
  return pass('UP and UV set; flags and signCount match authenticatorData');
}

function checkWebAuthnSignature(r: Fields, authData: Buffer, clientData: Buffer): ReceiptCheck {
  const imported = importCoseKey(Buffer.from(String(r.credentialPublicKeyB64Url), 'base64url'));
  if (!imported.ok) return fail(`the credential key cannot be used: ${imported.detail}`);
  const { algorithm, keyObject } = imported.key;
  const signed = Buffer.concat([authData, sha256(clientData)]);
  const check = verifyCoseSignature(
    algorithm,
    keyObject,
    signed,
    Buffer.from(String(r.signatureB64Url), 'base64url'),
  );
  return check.valid
    ? pass(`authenticator signature verifies with the enrolled key (COSE alg ${algorithm})`)
    : fail(`the authenticator signature does not verify with the enrolled key: ${check.detail}`);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
