/**
 * Single use across processes: two real server processes on one database (a PostgreSQL
 * database, or one SQLite file) race to verify the same challenges; each challenge gets exactly
 * one decision and at most one receipt. Runs the built service, so `npm test` builds first.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { computeActionHash } from '@presence/sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, testDatabaseUrl } from '../src/storage/testing.js';
import { cli, startServerProcess, type ServerProcess } from './support/server-process.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';

const built = existsSync(fileURLToPath(new URL('../dist/main.js', import.meta.url)));
if (!built) {
  if (process.env['CI'] === 'true')
    throw new Error('packages/server/dist is missing: npm test builds before testing');
  console.warn('multi-process tests skipped: run `npm run build` first (npm test does)');
}
const pgUp = built && (await pgAvailable());

async function withDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `presence_mp_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: testDatabaseUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

const setups = [
  { name: 'postgres', enabled: pgUp },
  { name: 'sqlite', enabled: built },
] as const;

for (const setup of setups) {
  describe.skipIf(!setup.enabled)(`two server processes on one ${setup.name} database`, () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-mp-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    };
    let servers: ServerProcess[] = [];
    let dropDatabase = async () => {};
    let apiKey = '';

    beforeAll(async () => {
      if (setup.name === 'postgres') {
        const db = await withDatabase();
        env.DATABASE_URL = db.url;
        dropDatabase = db.drop;
      }
      const created = JSON.parse(
        cli(
          [
            'tenant',
            'create',
            '--name',
            'mp',
            '--rp-id',
            'app.example',
            '--origin',
            'https://app.example',
            '--json',
          ],
          env,
        ),
      );
      apiKey = created.apiKey;
      servers = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    }, 60_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const call = async (server: ServerProcess, path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as any };
    };

    it('gives every challenge exactly one decision and one receipt', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
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
    }, 60_000);
  });
}
