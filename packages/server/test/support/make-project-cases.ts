/**
 * Writes test/fixtures/webauthn/project-cases.json: project-authored WebAuthn conformance cases
 * (issue 9 §3) in the shared vectors' format. Each is a real P-256 signature by the SDK's software
 * authenticator over bytes no browser produces, so only the strict parsing can refuse it; two
 * controls show the strictness refuses nothing a browser sends. Run once; the output is committed:
 *   npx vite-node packages/server/test/support/make-project-cases.ts
 */
import { writeFileSync } from 'node:fs';
import { encodeCBOR } from '@levischuck/tiny-cbor';
import { SoftwareAuthenticator, type CeremonyOverrides } from '@presence/sdk/testing';

const RP_ID = 'project.example';
const ORIGIN = 'https://project.example';
const CHALLENGE = 'cHJvamVjdC1hdXRob3JlZC1jaGFsbGVuZ2UtMDAwMQ';
const plain = (challenge: string, origin = ORIGIN) =>
  `{"type":"webauthn.get","challenge":"${challenge}","origin":"${origin}","crossOrigin":false`;
const SOURCE =
  'presence (project-authored, issue 9 §3); generator packages/server/test/support/make-project-cases.ts';

const cases: Array<{
  id: string;
  expected: 'valid' | 'invalid';
  reason: string;
  overrides: CeremonyOverrides;
}> = [
  {
    id: 'presence-auth-plain',
    expected: 'valid',
    reason: 'control: the client data a browser sends, no extensions',
    overrides: {},
  },
  {
    id: 'presence-auth-ed-extension-map',
    expected: 'valid',
    reason: 'control: ED set and the extension outputs are one CBOR map',
    overrides: { extensionData: encodeCBOR(new Map([['credProtect', 2]])) },
  },
  {
    id: 'neg-presence-auth-clientdata-duplicate-challenge',
    expected: 'invalid',
    reason:
      'clientDataJSON names challenge twice: a parser keeping the first reads another challenge than one keeping the last',
    overrides: {
      clientDataJSON: Buffer.from(`${plain('b3RoZXItY2hhbGxlbmdl')},"challenge":"${CHALLENGE}"}`),
    },
  },
  {
    id: 'neg-presence-auth-clientdata-duplicate-origin',
    expected: 'invalid',
    reason: 'clientDataJSON names origin twice (first a foreign origin, last the expected one)',
    overrides: {
      clientDataJSON: Buffer.from(`${plain(CHALLENGE, 'https://evil.example')},"origin":"${ORIGIN}"}`),
    },
  },
  {
    id: 'neg-presence-auth-clientdata-bom',
    expected: 'invalid',
    reason: 'a UTF-8 byte order mark precedes clientDataJSON; no browser produces it',
    overrides: {
      clientDataJSON: Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(`${plain(CHALLENGE)}}`)]),
    },
  },
  {
    id: 'neg-presence-auth-ed-not-cbor',
    expected: 'invalid',
    reason: 'ED is set but the bytes after signCount are not CBOR (0xff is a lone break code)',
    overrides: { extensionData: Buffer.of(0xff, 0x00) },
  },
  {
    id: 'neg-presence-auth-ed-map-then-bytes',
    expected: 'invalid',
    reason: 'ED is set and a CBOR map is followed by a stray byte',
    overrides: { extensionData: Buffer.concat([encodeCBOR(new Map([['k', 1]])), Buffer.of(0x00)]) },
  },
  {
    id: 'neg-presence-auth-ed-not-map',
    expected: 'invalid',
    reason: 'ED is set and the extension data is well-formed CBOR but an integer, not a map',
    overrides: { extensionData: Buffer.of(0x01) },
  },
];

const authenticator = new SoftwareAuthenticator({ rpId: RP_ID, origin: ORIGIN });
const vectors = cases.map(({ id, expected, reason, overrides }) => ({
  id,
  source: SOURCE,
  kind: 'authentication',
  rpId: RP_ID,
  origin: ORIGIN,
  expectedChallenge: CHALLENGE,
  credentialPublicKey: Buffer.from(authenticator.coseKey).toString('base64url'),
  credentialId: authenticator.id,
  response: authenticator.authenticate({ challenge: CHALLENGE }, overrides).response,
  requireUV: true,
  storedSignCount: 0,
  allowCrossOrigin: false,
  expectedTopOrigin: null,
  expected,
  reason,
}));
const out = new URL('../fixtures/webauthn/project-cases.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(vectors, null, 2)}\n`);
console.log(`wrote ${vectors.length} cases to ${out.pathname}`);
