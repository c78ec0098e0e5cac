/**
 * Single use across processes: two real server processes on one database (a PostgreSQL
 * database, or one SQLite file) race to verify the same challenges; each challenge gets exactly
 * one decision and at most one receipt. Runs the built service, so `npm test` builds first.
 */
import { randomBytes } from 'node:crypto';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { describe, expect, it } from 'vitest';
import type { ServerProcess } from './support/server-process.js';
import { processDialects, useServerProcesses } from './support/server-processes.js';
import { sample } from './support/metrics-text.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';

const METRICS_TOKEN = randomBytes(24).toString('base64url');

for (const setup of await processDialects('multi-process tests')) {
  describe.skipIf(!setup.enabled)(`two server processes on one ${setup.name} database`, () => {
    const group = useServerProcesses(setup.name, {
      name: 'mp',
      env: { PRESENCE_METRICS_TOKEN: METRICS_TOKEN },
      processes: 2,
    });

    const call = (server: ServerProcess, path: string, body: unknown) =>
      group.request(server, 'POST', path, body);

    it('gives every challenge exactly one decision and one receipt, and counts the settles', async () => {
      const [a, b] = group.servers as [ServerProcess, ServerProcess];
      const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
      const options = await call(a, '/v1/presence/credentials/options', { subject: 'racer' });
      const enrolled = await call(b, '/v1/presence/credentials', {
        registrationId: options.json.registrationId,
        credential: authenticator.register({ challenge: options.json.publicKey.challenge }),
      });
      expect(enrolled.status).toBe(201);
      for (let round = 0; round < 10; round++) {
        const challenge = await call(a, '/v1/presence/challenge', {
          actionHashHex: computeActionHash({ round }),
          subject: 'racer',
        });
        const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
        const body = { challengeId: challenge.json.challengeId, assertion };
        const results = await Promise.all(
          Array.from({ length: 8 }, (_, i) => call(i % 2 ? a : b, '/v1/presence/verify', body)),
        );
        const decisions = results.map((r) => r.json.decision).sort();
        expect(
          decisions.filter((d) => d === 'PRESENCE_VERIFIED'),
          `round ${round}`,
        ).toHaveLength(1);
        expect(decisions.filter((d) => d === 'CHALLENGE_ALREADY_USED')).toHaveLength(7);
        const receiptIds = new Set(results.map((r) => r.json.receiptId).filter(Boolean));
        expect(receiptIds.size).toBe(1);
      }
      // The verified settles that reached the statement, over both processes: on PostgreSQL at
      // least the ten that won and at most all 80 requests; SQLite has no settle batches.
      const scraped = await Promise.all(
        group.servers.map(async (server) => {
          const res = await fetch(`${server.url}/metrics`, {
            headers: { authorization: `Bearer ${METRICS_TOKEN}` },
          });
          return res.text();
        }),
      );
      const total = (series: string) => scraped.reduce((n, text) => n + (sample(text, series) ?? NaN), 0);
      const members = total('presence_pg_settle_batch_members_sum');
      if (setup.name === 'postgres') {
        expect(members).toBeGreaterThanOrEqual(10);
        expect(members).toBeLessThanOrEqual(80);
        expect(total('presence_pg_settle_batch_members_count')).toBeGreaterThanOrEqual(1);
      } else expect(members).toBe(0);
    }, 60_000);
  });
}
