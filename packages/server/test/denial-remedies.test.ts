/**
 * Every denial says what to do: the verify response carries the catalogue's `remedy` for its
 * decision (never for PRESENCE_VERIFIED), and docs/integration.md's table lists every denial.
 */
import { readFileSync } from 'node:fs';
import { DENIALS, DENIAL_REMEDIES } from '@presence/contract';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const GUIDE = readFileSync(new URL('../../../docs/integration.md', import.meta.url), 'utf8');

it('has a remedy for every denial, and the integration guide a row for each', () => {
  for (const denial of DENIALS) {
    expect(DENIAL_REMEDIES[denial].length, denial).toBeGreaterThan(30);
    expect(GUIDE, denial).toContain(`| \`${denial}\` | ${DENIAL_REMEDIES[denial]} |`);
  }
});

describeEachDialect('denial remedies', (dialect) => {
  const s = useTestService(dialect);

  it('ORIGIN_NOT_ALLOWED says to add the origin to the policy; a verified decision has no remedy', async () => {
    const { authenticator } = await s.enroll('remedy-user');
    const challenge = async () =>
      (
        await s.request('POST', '/v1/presence/challenge', {
          actionHashHex: computeActionHash({ remedy: Math.random() }),
          subject: 'remedy-user',
        })
      ).json;
    const elsewhere = await challenge();
    const denied = await s.request('POST', '/v1/presence/verify', {
      challengeId: elsewhere.challengeId,
      assertion: authenticator.assert({
        challenge: elsewhere.publicKey.challenge,
        origin: 'https://other.example',
      }),
    });
    expect(denied.json).toMatchObject({ decision: 'ORIGIN_NOT_ALLOWED' });
    expect(denied.json.remedy).toBe(DENIAL_REMEDIES.ORIGIN_NOT_ALLOWED);
    expect(denied.json.remedy).toMatch(/allowedOrigins/);
    const fine = await challenge();
    const verified = await s.request('POST', '/v1/presence/verify', {
      challengeId: fine.challengeId,
      assertion: authenticator.assert({ challenge: fine.publicKey.challenge }),
    });
    expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    expect(verified.json).not.toHaveProperty('remedy');
  });
});
