/**
 * Strict client data (issue 9 §3) end to end, on both dialects: the verify route denies a
 * genuinely signed assertion with a duplicated clientDataJSON member, a UTF-8 BOM, or ED followed
 * by non-CBOR (ASSERTION_MALFORMED); and a receipt holding such bytes (sealed by the service
 * signer, as an older build would have issued it) fails the offline SDK verifier and the online
 * POST /v1/presence/receipts/verify alike, on the same check.
 */
import { verifyReceipt } from '@presence/sdk/node';
import type { CeremonyOverrides } from '@presence/sdk/testing';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { seedReceipts } from './support/seed-receipts.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const clientData = (challenge: string) =>
  `{"type":"webauthn.get","challenge":"${challenge}","origin":"${ORIGIN}","crossOrigin":false`;

/**
 * Each case: how the authenticator's output differs, and the receipt checks that must fail (refused
 * client data also leaves the challenge binding unproven).
 */
const CASES: Array<[string, (challenge: string) => CeremonyOverrides, string[]]> = [
  [
    'a clientDataJSON member twice',
    (c) => ({ clientDataJSON: Buffer.from(`${clientData('b3RoZXI')},"challenge":"${c}"}`) }),
    ['challengeBinding', 'clientData'],
  ],
  [
    'a UTF-8 BOM before clientDataJSON',
    (c) => ({
      clientDataJSON: Buffer.concat([Buffer.of(0xef, 0xbb, 0xbf), Buffer.from(`${clientData(c)}}`)]),
    }),
    ['challengeBinding', 'clientData'],
  ],
  ['the ED flag followed by non-CBOR', () => ({ extensionData: Buffer.of(0xff, 0x00) }), ['flags']],
];

describeEachDialect('strict client data', (dialect) => {
  const s = useTestService(dialect);

  it.each(CASES)('the verify route denies %s as ASSERTION_MALFORMED', async (name, overrides) => {
    const subject = `subject-${CASES.findIndex((c) => c[0] === name)}`;
    const { authenticator } = await s.enroll(subject);
    const challenge = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: 'ab'.repeat(32),
      subject,
    });
    const c = challenge.json.publicKey.challenge as string;
    const assertion = authenticator.assert({ challenge: c, ...overrides(c) });
    const verdict = await s.request('POST', '/v1/presence/verify', {
      challengeId: challenge.json.challengeId,
      assertion,
    });
    expect(verdict.status).toBe(200);
    expect(verdict.json).toMatchObject({ decision: 'ASSERTION_MALFORMED' });
  });

  it('a receipt holding such bytes fails offline and online on the same check', async () => {
    const { authenticator } = await s.enroll('auditor-case');
    const seeded = await seedReceipts(s.composed.deps, s.tenantId, authenticator, CASES.length + 1, {
      assertion: (i, challenge) => (i < CASES.length ? CASES[i]![1](challenge) : {}),
    });
    const keys = (await s.request('GET', '/.well-known/presence/keys.json')).json.keys;
    for (const [i, record] of seeded.entries()) {
      const signed = (await s.request('GET', `/v1/presence/receipts/${record.id}`)).json;
      const offline = verifyReceipt(signed, { keys });
      const online = (await s.request('POST', '/v1/presence/receipts/verify', signed)).json;
      const failing = (checks: Record<string, { ok: boolean }>) =>
        Object.keys(checks)
          .filter((name) => !checks[name]!.ok)
          .sort();
      const expected = i < CASES.length ? CASES[i]![2] : [];
      expect(failing(offline.checks), `receipt ${i}`).toEqual(expected);
      expect(failing(online.checks), `receipt ${i}`).toEqual(expected);
      expect(online.valid).toBe(expected.length === 0);
      expect(online.checks.stored.ok).toBe(true);
    }
  });
});
