import { createPublicKey, timingSafeEqual, verify } from 'node:crypto';
import type { ReceiptCheckName, ServiceKey } from '#contract';
import { deriveChallenge } from './challenge.js';
import { importCoseKey, verifyCoseSignature } from './cose-key.js';
import { canonicalJson, sha256 } from './encoding.js';

export interface ReceiptCheck {
  ok: boolean;
  detail: string;
}

export interface ReceiptReport {
  valid: boolean;
  receiptId: string | null;
  receiptHashHex: string | null;
  checks: Partial<Record<ReceiptCheckName, ReceiptCheck>>;
}

export interface SignedReceiptInput {
  receipt: unknown;
  receiptHashHex?: string | undefined;
  signature?: { alg?: unknown; kid?: unknown; signatureB64Url?: unknown } | undefined;
}

type Fields = Record<string, unknown>;
const STRING_FIELDS = [
  'receiptId',
  'actionHashHex',
  'challengeNonceB64Url',
  'challengeB64Url',
  'issuedAt',
  'rpId',
  'origin',
  'credentialPublicKeyB64Url',
  'authenticatorDataB64Url',
  'clientDataJSONB64Url',
  'signatureB64Url',
] as const;

/**
 * Checks one receipt offline, trusting nothing but the service public keys you pass (pinned, or
 * read from /.well-known/presence/keys.json): hash, service signature, key validity at issue
 * time, challenge recomputed from action hash and nonce, client data, rpId hash, flags, and the
 * authenticator's signature with the credential key the receipt carries.
 */
export function verifyReceipt(
  input: SignedReceiptInput,
  options: { keys: readonly ServiceKey[] },
): ReceiptReport {
  const checks: ReceiptReport['checks'] = {};
  const r = input.receipt as Fields;
  const missing = STRING_FIELDS.filter((f) => typeof r?.[f] !== 'string');
  checks.schema =
    missing.length === 0 && r.version === 'presence.receipt.v1'
      ? pass('all required fields are present')
      : fail(`not a presence.receipt.v1 object; missing or wrong: ${missing.join(', ') || 'version'}`);
  if (!checks.schema.ok) return report(checks, null, null);
  const text = canonicalJson(r);
  const hashHex = sha256(text).toString('hex');
  checks.hash =
    input.receiptHashHex === undefined
      ? pass(`SHA-256 of the canonical receipt is ${hashHex} (no expected hash given)`)
      : input.receiptHashHex === hashHex
        ? pass('receiptHashHex matches the canonical bytes')
        : fail(`expected ${input.receiptHashHex}, computed ${hashHex}`);
  Object.assign(checks, checkServiceSignature(Buffer.from(text, 'utf8'), r, input.signature, options.keys));
  Object.assign(checks, checkAssertion(r));
  return report(checks, r.receiptId as string, hashHex);
}

function checkServiceSignature(
  message: Buffer,
  r: Fields,
  sig: SignedReceiptInput['signature'],
  keys: readonly ServiceKey[],
) {
  if (
    !sig ||
    typeof sig.kid !== 'string' ||
    typeof sig.signatureB64Url !== 'string' ||
    sig.alg !== 'Ed25519'
  ) {
    return { serviceSignature: fail('no Ed25519 signature record {alg, kid, signatureB64Url} was given') };
  }
  const key = keys.find((k) => k.kid === sig.kid);
  if (!key) return { serviceSignature: fail(`key ${sig.kid} is not among the trusted service keys`) };
  const publicKey = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKeyB64Url },
    format: 'jwk',
  });
  const ok = verify(null, message, publicKey, Buffer.from(sig.signatureB64Url, 'base64url'));
  const issued = Date.parse(String(r.issuedAt));
  const inWindow =
    issued >= Date.parse(key.notBefore) && (key.notAfter === null || issued <= Date.parse(key.notAfter));
  return {
    serviceSignature: ok
      ? pass(`signed by ${key.kid}`)
      : fail(`the signature does not verify with ${key.kid}`),
    serviceKeyValid: inWindow
      ? pass(`issued within ${key.kid}'s validity`)
      : fail(`issuedAt is outside ${key.kid}'s validity`),
  };
}

function checkAssertion(r: Fields): ReceiptReport['checks'] {
  const checks: ReceiptReport['checks'] = {};
  const b = (f: string) => Buffer.from(String(r[f]), 'base64url');
  const challenge = deriveChallenge(Buffer.from(String(r.actionHashHex), 'hex'), b('challengeNonceB64Url'));
  const clientDataBytes = b('clientDataJSONB64Url');
  let clientData: Fields = {};
  try {
    clientData = JSON.parse(clientDataBytes.toString('utf8')) as Fields;
  } catch {
    checks.clientData = fail('clientDataJSON is not JSON');
  }
  checks.challengeBinding =
    challenge.toString('base64url') === r.challengeB64Url && clientData.challenge === r.challengeB64Url
      ? pass('challenge = SHA-256(label || 0x00 || actionHash || nonce), and clientDataJSON carries it')
      : fail(
          'the challenge does not commit to this action hash and nonce, or clientDataJSON carries another',
        );
  checks.clientData ??=
    clientData.type === 'webauthn.get' &&
    clientData.origin === r.origin &&
    (clientData.crossOrigin === true) === (r.crossOrigin === true)
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
  if (authData.length < 37) return fail('authenticatorData is shorter than 37 bytes');
  const f = authData[32]!;
  const actual = { UP: (f & 0x01) !== 0, UV: (f & 0x04) !== 0, BE: (f & 0x08) !== 0, BS: (f & 0x10) !== 0 };
  const claimed = (r.flags ?? {}) as Fields;
  const same = (Object.keys(actual) as (keyof typeof actual)[]).every((k) => claimed[k] === actual[k]);
  if (!actual.UP || !actual.UV) return fail('user presence and user verification must both be set');
  if (actual.BS && !actual.BE) return fail('BS is set without BE');
  if (!same || authData.readUInt32BE(33) !== r.signCount)
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

function pass(detail: string): ReceiptCheck {
  return { ok: true, detail };
}

function fail(detail: string): ReceiptCheck {
  return { ok: false, detail };
}

function report(
  checks: ReceiptReport['checks'],
  receiptId: string | null,
  receiptHashHex: string | null,
): ReceiptReport {
  return { valid: Object.values(checks).every((c) => c.ok), receiptId, receiptHashHex, checks };
}
