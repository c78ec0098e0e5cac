import { loadWebAuthnVectors } from '../../../test/fixtures/webauthn/vectors.js';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VERIFIABLE_ALGORITHMS } from './public-key-cache.js';
import {
  REGISTRATION_FAILURES,
  verifyRegistration,
  type RegistrationExpectations,
  type RegistrationResponseLike,
} from './verify-registration.js';

// ---- real vectors, vendored under test/fixtures/webauthn -----------------------------------------
type Vector = Record<string, any>;
const vectors = loadWebAuthnVectors();
const vector = (id: string) => vectors.find((v) => v.id === id)!;

function vectorInput(v: Vector, expect: Partial<RegistrationExpectations> = {}) {
  return {
    response: { id: v.credentialId, rawId: v.credentialId, type: 'public-key', response: { ...v.response } },
    expect: {
      rpId: v.rpId,
      allowedOrigins: [v.origin],
      expectedChallengeB64Url: v.expectedChallenge,
      requireUserVerification: v.requireUV,
      allowedAlgorithms: VERIFIABLE_ALGORITHMS,
      allowCrossOrigin: v.allowCrossOrigin ?? false,
      allowedTopOrigins: v.expectedTopOrigin ? [v.expectedTopOrigin] : [],
      ...expect,
    },
  };
}

// ---- generated "none" attestations: nothing signs them, so any field can be set -----------------
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const cbor = (value: unknown) => Buffer.from(isoCBOR.encode(value as never));
const RP = {
  rpId: 'example.org',
  origin: 'https://example.org',
  challenge: 'cmVnaXN0cmF0aW9uLWNoYWxsZW5nZQ',
};
const AAGUID = '2fc0579f-8113-47ea-b116-bb5a8db9202a';
const jwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' });
const x = Buffer.from(jwk.x!, 'base64url');
const y = Buffer.from(jwk.y!, 'base64url');
/** An EC2 P-256 COSE_Key: kty 1, alg 3, crv -1, x -2, y -3. */
const coseKey = (alg: number, yCoordinate = y) =>
  cbor(
    new Map<number, unknown>([
      [1, 2],
      [3, alg],
      [-1, 1],
      [-2, x],
      [-3, yCoordinate],
    ]),
  );

interface Parts {
  flags?: number;
  rpId?: string;
  credentialId?: Buffer;
  cose?: Buffer;
  fmt?: string;
  attStmt?: Map<string, unknown>;
  clientData?: Record<string, unknown>;
  transports?: unknown[];
}

function makeRegistration(parts: Parts = {}): RegistrationResponseLike {
  const credentialId = parts.credentialId ?? Buffer.from('generated-credential');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(credentialId.length);
  const authData = Buffer.concat([
    createHash('sha256')
      .update(parts.rpId ?? RP.rpId)
      .digest(),
    Buffer.of(parts.flags ?? 0x45),
    Buffer.alloc(4),
    Buffer.from(AAGUID.replaceAll('-', ''), 'hex'),
    length,
    credentialId,
    parts.cose ?? coseKey(-7),
  ]);
  const attestationObject = cbor(
    new Map<string, unknown>([
      ['fmt', parts.fmt ?? 'none'],
      ['attStmt', parts.attStmt ?? new Map()],
      ['authData', authData],
    ]),
  );
  const clientData = {
    type: 'webauthn.create',
    challenge: RP.challenge,
    origin: RP.origin,
    crossOrigin: false,
    ...parts.clientData,
  };
  return {
    id: b64(credentialId),
    rawId: b64(credentialId),
    type: 'public-key',
    response: {
      attestationObject: b64(attestationObject),
      clientDataJSON: b64(Buffer.from(JSON.stringify(clientData))),
      transports: (parts.transports ?? ['usb']) as string[],
    },
  };
}

const EXPECT: RegistrationExpectations = {
  rpId: RP.rpId,
  allowedOrigins: [RP.origin],
  expectedChallengeB64Url: RP.challenge,
  requireUserVerification: true,
  allowedAlgorithms: [-7, -8, -257],
};
const generated = (parts: Parts = {}, expect: Partial<RegistrationExpectations> = {}) => ({
  response: makeRegistration(parts),
  expect: { ...EXPECT, ...expect },
});

describe('verifyRegistration: what passes', () => {
  it('returns the credential from a W3C none vector, byte-exact', async () => {
    const v = vector('w3c-none-es256-reg');
    const verdict = await verifyRegistration(vectorInput(v));
    expect(verdict).toMatchObject({
      ok: true,
      credentialId: v.credentialId,
      publicKeyB64Url: v.credentialPublicKey,
      algorithm: -7,
      signCount: 0,
      attestationFormat: 'none',
      backupEligible: true,
      backedUp: true,
      userVerified: false,
      attestationObjectB64Url: v.response.attestationObject,
    });
  });

  it('verifies a packed self-attestation through the library', async () => {
    expect(await verifyRegistration(vectorInput(vector('w3c-packed-self-es256-reg')))).toMatchObject({
      ok: true,
      attestationFormat: 'packed',
    });
  });

  it('accepts the standard base64 alphabet of real vectors (then judges the attestation, not the encoding)', async () => {
    const verdict = await verifyRegistration(
      vectorInput(vector('py_webauthn-reg-tpm-test_verify_attestation_dell_xps_13')),
    );
    expect(verdict).toMatchObject({
      ok: false,
      reason: 'ATTESTATION_INVALID',
      detail: expect.stringContaining('not good after'),
    });
  });

  it('accepts a listed top origin when cross-origin use is allowed', async () => {
    expect((await verifyRegistration(vectorInput(vector('w3c-none-es256-topOrigin-reg')))).ok).toBe(true);
  });

  it('applies format and AAGUID allowlists only when they are non-empty, ignoring AAGUID case', async () => {
    const verdict = await verifyRegistration(
      generated(
        { transports: ['usb', 7, 'nfc'] },
        { allowedFormats: [], aaguidAllowlist: [AAGUID.toUpperCase()] },
      ),
    );
    expect(verdict).toMatchObject({
      ok: true,
      aaguid: AAGUID,
      transports: ['usb', 'nfc'],
      userVerified: true,
      backupEligible: false,
    });
  });
});

describe('verifyRegistration: one failing case per check', () => {
  const valid = makeRegistration();
  const cases: Array<[string, unknown, string]> = [
    ['response is not an object', { response: null, expect: EXPECT }, 'RESPONSE_MALFORMED'],
    [
      'type is not public-key',
      { response: { ...valid, type: 'password' }, expect: EXPECT },
      'RESPONSE_MALFORMED',
    ],
    ['id and rawId differ', { response: { ...valid, rawId: 'AAAA' }, expect: EXPECT }, 'RESPONSE_MALFORMED'],
    [
      'attestationObject not base64url',
      { response: { ...valid, response: { ...valid.response, attestationObject: '***' } }, expect: EXPECT },
      'RESPONSE_MALFORMED',
    ],
    [
      'attestationObject not CBOR',
      { response: { ...valid, response: { ...valid.response, attestationObject: '_w' } }, expect: EXPECT },
      'RESPONSE_MALFORMED',
    ],
    ['no attested credential data', generated({ flags: 0x05 }), 'RESPONSE_MALFORMED'],
    ['clientData type webauthn.get', generated({ clientData: { type: 'webauthn.get' } }), 'TYPE_MISMATCH'],
    ['another challenge', generated({ clientData: { challenge: 'b3RoZXI' } }), 'CHALLENGE_MISMATCH'],
    [
      'unexpected origin',
      generated({ clientData: { origin: 'https://evil.example' } }),
      'ORIGIN_NOT_ALLOWED',
    ],
    ['cross-origin iframe', generated({ clientData: { crossOrigin: true } }), 'CROSS_ORIGIN_NOT_ALLOWED'],
    ['rpIdHash of another RP', generated({ rpId: 'example.com' }), 'RP_ID_MISMATCH'],
    ['UP not set', generated({ flags: 0x44 }), 'USER_NOT_PRESENT'],
    ['UV required, not set', generated({ flags: 0x41 }), 'USER_NOT_VERIFIED'],
    ['BS without BE', generated({ flags: 0x55 }), 'BACKUP_FLAGS_INVALID'],
    [
      'credential id over 1023 bytes',
      generated({ credentialId: Buffer.alloc(1024, 1) }),
      'CREDENTIAL_ID_TOO_LONG',
    ],
    ['algorithm outside the policy', generated({}, { allowedAlgorithms: [-8] }), 'ALGORITHM_NOT_ALLOWED'],
    ['public key off its curve', generated({ cose: coseKey(-7, Buffer.alloc(32, 9)) }), 'PUBLIC_KEY_INVALID'],
    ['format outside the policy', generated({}, { allowedFormats: ['packed'] }), 'FORMAT_NOT_ALLOWED'],
    [
      'AAGUID outside the allowlist',
      generated({}, { aaguidAllowlist: ['00000000-0000-0000-0000-000000000001'] }),
      'AAGUID_NOT_ALLOWED',
    ],
    [
      'none with a statement',
      generated({ attStmt: new Map([['sig', Buffer.alloc(8)]]) }),
      'ATTESTATION_INVALID',
    ],
    ['unknown format', generated({ fmt: 'made-up' }), 'ATTESTATION_INVALID'],
    [
      'attestation signature flipped',
      vectorInput(vector('neg-w3c-packed-self-reg-bad-attstmt-sig')),
      'ATTESTATION_INVALID',
    ],
  ];

  it('accepts the unmodified generated registration', async () => {
    expect(await verifyRegistration(generated())).toMatchObject({
      ok: true,
      credentialId: valid.id,
      algorithm: -7,
    });
  });

  it.each(cases)('%s', async (_name, input, reason) => {
    expect(await verifyRegistration(input as Parameters<typeof verifyRegistration>[0])).toMatchObject({
      ok: false,
      reason,
    });
  });
});

describe('verifyRegistration never throws', () => {
  it('turns every mutation of real registrations into a verdict', async () => {
    const sources = ['w3c-none-es256-reg', 'w3c-packed-self-es256-reg', 'yubico-YubiKey5-reg'].map(vector);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...sources),
        fc.constantFrom('attestationObject', 'clientDataJSON'),
        fc.oneof(fc.record({ at: fc.nat(), bit: fc.nat(7) }), fc.uint8Array({ maxLength: 200 })),
        async (v, field, mutation) => {
          const input = vectorInput(v);
          const bytes = Buffer.from(input.response.response[field], 'base64');
          if (mutation instanceof Uint8Array) input.response.response[field] = b64(mutation);
          else {
            bytes[mutation.at % bytes.length]! ^= 1 << mutation.bit;
            input.response.response[field] = b64(bytes);
          }
          const verdict = await verifyRegistration(input);
          if (!verdict.ok) expect(REGISTRATION_FAILURES).toContain(verdict.reason);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns RESPONSE_MALFORMED for arbitrary values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (anything) => {
        expect(await verifyRegistration({ response: anything as never, expect: EXPECT })).toMatchObject({
          ok: false,
          reason: 'RESPONSE_MALFORMED',
        });
      }),
      { numRuns: 200 },
    );
  });
});
