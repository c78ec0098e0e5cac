/**
 * Receipt vectors: real receipts of the real service (one per credential algorithm the default
 * policy allows), and one tampering per check. A tampered receipt is re-hashed and re-signed with
 * the service's own key wherever the tampering is not of the hash or signature itself, so that
 * exactly the named check fails and every other passes.
 */
import type { SignedEvidence, VectorSigner } from './vector-signer.js';

export interface ReceiptVector {
  name: string;
  /** A file of this directory holding a keys.json document. */
  keys: string;
  signed: SignedEvidence;
  /** The executor's own action; when given the `action` check runs. */
  action?: unknown;
  maxAgeSeconds?: number;
  /** Unix seconds "now" for the max-age check. */
  now?: number;
  expect: { valid: boolean; failed: string[] };
}

type Receipt = Record<string, unknown>;

/** Changes one character in the middle (the last one may only carry padding bits). */
function flipMiddleChar(b64u: string): string {
  const at = Math.floor(b64u.length / 2);
  return `${b64u.slice(0, at)}${b64u[at] === 'A' ? 'B' : 'A'}${b64u.slice(at + 1)}`;
}

/**
 * Receipts whose authenticator data breaks one flag rule, signed again by the authenticator that
 * made the receipt (so the WebAuthn signature holds) and by the service: only `flags` fails.
 */
export function flagVectors(
  signer: VectorSigner,
  signed: SignedEvidence,
  authenticator: { signAssertion(authData: Uint8Array, clientDataJSON: Uint8Array): string },
): ReceiptVector[] {
  const receipt = signed.receipt as Receipt;
  const original = Buffer.from(String(receipt.authenticatorDataB64Url), 'base64url');
  const clientData = Buffer.from(String(receipt.clientDataJSONB64Url), 'base64url');
  const variant = (name: string, flags: number, extension: Buffer = Buffer.alloc(0)): ReceiptVector => {
    const authData = Buffer.concat([
      original.subarray(0, 32),
      Buffer.from([flags]),
      original.subarray(33, 37),
      extension,
    ]);
    const claimed = {
      UP: (flags & 0x01) !== 0,
      UV: (flags & 0x04) !== 0,
      BE: (flags & 0x08) !== 0,
      BS: (flags & 0x10) !== 0,
    };
    return {
      name,
      keys: 'keys.json',
      signed: signer.signReceipt({
        ...receipt,
        flags: claimed,
        authenticatorDataB64Url: authData.toString('base64url'),
        signatureB64Url: authenticator.signAssertion(authData, clientData),
      }),
      expect: { valid: false, failed: ['flags'] },
    };
  };
  return [
    variant('user verification not set (UV = 0)', 0x01),
    variant('user presence not set (UP = 0)', 0x04),
    variant('backup state without backup eligibility (BS without BE)', 0x01 | 0x04 | 0x10),
    variant('attested credential data in an assertion (AT)', 0x01 | 0x04 | 0x40),
    variant('the ED flag without extension data', 0x01 | 0x04 | 0x80),
    variant('extension data without the ED flag', 0x01 | 0x04, Buffer.from([0xa0])),
    variant('extension data that is not a CBOR map', 0x01 | 0x04 | 0x80, Buffer.from([0x01])),
    {
      ...variant(
        'valid: extension data, one empty CBOR map, with the ED flag',
        0x01 | 0x04 | 0x80,
        Buffer.from([0xa0]),
      ),
      expect: { valid: true, failed: [] },
    },
  ];
}

export function receiptVectors(
  signer: VectorSigner,
  real: { name: string; signed: SignedEvidence }[],
  action: unknown,
  otherAction: unknown,
): ReceiptVector[] {
  const base = real[0]!.signed;
  const receipt = base.receipt as Receipt;
  const issued = Math.floor(Date.parse(String(receipt.issuedAt)) / 1000);
  const resign = (change: (r: Receipt) => Receipt) => signer.signReceipt(change(structuredClone(receipt)));
  const tampered = (name: string, signed: SignedEvidence, failed: string[]): ReceiptVector => ({
    name,
    keys: 'keys.json',
    signed,
    expect: { valid: false, failed },
  });
  const decoded = JSON.parse(
    Buffer.from(String(receipt.clientDataJSONB64Url), 'base64url').toString('utf8'),
  ) as Record<string, unknown>;
  return [
    ...real.map(({ name, signed }) => ({
      name,
      keys: 'keys.json',
      signed,
      expect: { valid: true, failed: [] },
    })),
    {
      name: 'valid with the executor action',
      keys: 'keys.json',
      signed: base,
      action,
      expect: { valid: true, failed: [] },
    },
    {
      name: 'the executor action differs',
      keys: 'keys.json',
      signed: base,
      action: otherAction,
      expect: { valid: false, failed: ['action'] },
    },
    {
      name: 'within the maximum age',
      keys: 'keys.json',
      signed: base,
      maxAgeSeconds: 300,
      now: issued + 299,
      expect: { valid: true, failed: [] },
    },
    {
      name: 'older than the maximum age',
      keys: 'keys.json',
      signed: base,
      maxAgeSeconds: 300,
      now: issued + 301,
      expect: { valid: false, failed: ['maxAge'] },
    },
    {
      name: 'valid after its key was retired (a later keys.json)',
      keys: 'keys-rotated.json',
      signed: base,
      expect: { valid: true, failed: [] },
    },
    {
      name: 'issued outside the key validity',
      keys: 'keys-not-yet-valid.json',
      signed: base,
      expect: { valid: false, failed: ['serviceKeyValid'] },
    },
    {
      name: 'signed by a key the executor does not trust',
      keys: 'keys-other.json',
      signed: base,
      expect: { valid: false, failed: ['serviceSignature'] },
    },
    {
      name: 'the executor action holds a lone surrogate (no canonical form)',
      keys: 'keys.json',
      signed: base,
      action: { ...(action as object), memo: 'a\ud800' },
      expect: { valid: false, failed: ['action'] },
    },
    // No canonical form, so it cannot be re-signed: the hash and signature are the original's.
    tampered(
      'a string holds a lone surrogate (schema)',
      { ...base, receipt: { ...receipt, subject: `${String(receipt.subject)}\ud800` } },
      ['schema'],
    ),
    tampered(
      'an extra member (schema)',
      resign((r) => ({ ...r, amount: '1.00' })),
      ['schema'],
    ),
    tampered(
      'decision is not PRESENCE_VERIFIED (schema)',
      resign((r) => ({ ...r, decision: 'USER_NOT_VERIFIED' })),
      ['schema'],
    ),
    tampered(
      'a member missing (schema)',
      resign(({ subject: _subject, ...r }) => r),
      ['schema'],
    ),
    tampered('receiptHashHex differs', { ...base, receiptHashHex: `${'0'.repeat(63)}1` }, ['hash']),
    tampered(
      'the service signature altered',
      {
        ...base,
        signature: { ...base.signature, signatureB64Url: flipMiddleChar(base.signature.signatureB64Url) },
      },
      ['serviceSignature'],
    ),
    tampered(
      'a member changed after signing',
      {
        ...base,
        receipt: { ...receipt, subject: `${String(receipt.subject)}x` },
        receiptHashHex: signer.hash({ ...receipt, subject: `${String(receipt.subject)}x` }),
      },
      ['serviceSignature'],
    ),
    tampered(
      'the nonce does not give the challenge',
      resign((r) => ({ ...r, challengeNonceB64Url: Buffer.alloc(32, 7).toString('base64url') })),
      ['challengeBinding'],
    ),
    tampered(
      'the action hash does not give the challenge',
      resign((r) => ({ ...r, actionHashHex: 'ab'.repeat(32) })),
      ['challengeBinding'],
    ),
    tampered(
      'the receipt names another origin',
      resign((r) => ({ ...r, origin: 'https://evil.example' })),
      ['clientData'],
    ),
    tampered(
      'the receipt says crossOrigin',
      resign((r) => ({ ...r, crossOrigin: true })),
      ['clientData'],
    ),
    tampered(
      'the receipt names another rpId',
      resign((r) => ({ ...r, rpId: 'evil.example' })),
      ['rpIdHash'],
    ),
    tampered(
      'the receipt claims a flag the authenticator did not set',
      resign((r) => ({ ...r, flags: { ...(r.flags as object), BE: true } })),
      ['flags'],
    ),
    tampered(
      'the receipt claims another signCount',
      resign((r) => ({ ...r, signCount: Number(r.signCount) + 1 })),
      ['flags'],
    ),
    tampered(
      'the authenticator signature altered',
      resign((r) => ({ ...r, signatureB64Url: flipMiddleChar(String(r.signatureB64Url)) })),
      ['webauthnSignature'],
    ),
    tampered(
      'the credential key of another receipt',
      resign((r) => ({
        ...r,
        credentialPublicKeyB64Url: (real[1]!.signed.receipt as Receipt).credentialPublicKeyB64Url,
      })),
      ['webauthnSignature'],
    ),
    tampered(
      'clientDataJSON of another type',
      resign((r) => ({
        ...r,
        clientDataJSONB64Url: Buffer.from(JSON.stringify({ ...decoded, type: 'webauthn.create' })).toString(
          'base64url',
        ),
      })),
      ['clientData', 'webauthnSignature'],
    ),
  ];
}
