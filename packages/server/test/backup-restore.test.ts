/**
 * The restore drill, on both dialects: a running service is backed up online (SQLite with the
 * backup API behind `presence backup`; PostgreSQL with pg_dump -Fc), the backup is restored into
 * a fresh instance with the same master key, and there: stored receipts verify, a new export pack
 * verifies offline, the signing keys are the same and sign new receipts, a webhook endpoint
 * delivers a signed event to a local receiver, and usage and invoices are what they were.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeActionHashSync as computeActionHash, verifyPack, verifyWebhook } from '@presence/sdk/node';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { composeWith, depsFromStore, type Composed } from '../src/compose.js';
import { loadConfig } from '../src/config/load-config.js';
import { closePeriod } from '../src/domain/billing/close-period-for-tenants.js';
import { backupSqlite } from '../src/storage/backup-sqlite.js';
import { migrateDatabase } from '../src/storage/migrate-database.js';
import { openStore, type StoreOptions } from '../src/storage/open-store.js';
import { testDatabaseUrl } from '../src/storage/testing.js';
import { describeEachDialect } from './support/each-dialect.js';
import { createEndpoint, deliverDue, receiverPool, useWebhookService } from './support/webhook-helpers.js';

const pgDump = (() => {
  try {
    execFileSync('pg_dump', ['--version']);
    return true;
  } catch {
    if (process.env['CI'] === 'true') throw new Error('pg_dump is required in CI for the restore drill');
    console.warn('restore drill: pg_dump is not installed; skipping the PostgreSQL half');
    return false;
  }
})();
const scratch = mkdtempSync(join(tmpdir(), 'presence-drill-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Backs the service's database up and restores it somewhere new; returns where. */
async function backupAndRestore(
  options: StoreOptions,
): Promise<{ options: StoreOptions; drop(): Promise<void> }> {
  if (options.databaseUrl === undefined) {
    const target = join(mkdtempSync(join(scratch, 'restored-')), 'presence.sqlite');
    await backupSqlite(options.sqlitePath, target);
    return { options: { sqlitePath: target }, drop: async () => {} };
  }
  const dump = join(scratch, `${options.pgSchema}.dump`);
  execFileSync('pg_dump', ['-Fc', '--schema', options.pgSchema!, '-f', dump, options.databaseUrl]);
  const name = `presence_drill_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testDatabaseUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(testDatabaseUrl());
  url.pathname = `/${name}`;
  execFileSync('pg_restore', ['--no-owner', '-d', url.toString(), dump]);
  return {
    options: { ...options, databaseUrl: url.toString() },
    async drop() {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describeEachDialect('restore drill', (dialect) => {
  const pool = receiverPool();
  const s = useWebhookService(dialect, (started) => pool.closeWith(started));
  let restored: Composed | undefined;
  let drop = async () => {};
  afterAll(async () => {
    await restored?.close();
    await drop();
  });

  // The PostgreSQL half needs pg_dump and pg_restore (required in CI, see pgDump above).
  it.skipIf(dialect === 'postgres' && !pgDump)(
    'serves verifiable evidence, keys, webhooks and billing from the restored backup',
    async () => {
      const receiver = await pool.start();
      const endpoint = await createEndpoint(s, receiver.url, ['receipt.created']);
      const { authenticator } = await s.enroll('alice');
      const verifyOne = async (call: typeof s.request, n: number) => {
        const challenge = await call('POST', '/v1/presence/challenge', {
          actionHashHex: computeActionHash({ drill: n }),
          subject: 'alice',
        });
        const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
        const verified = await call('POST', '/v1/presence/verify', {
          challengeId: challenge.json.challengeId,
          assertion,
        });
        expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
        return verified.json;
      };
      const receipts = [await verifyOne(s.request, 1), await verifyOne(s.request, 2)];
      await deliverDue(s);
      const month = new Date(s.clock.now()).toISOString().slice(0, 7);
      const usageUrl = `/v1/billing/usage?from=${month}-01T00:00:00.000Z&to=${nextMonth(month)}&granularity=month`;
      const usage = await s.request('GET', usageUrl);
      expect(usage.status).toBe(200);
      s.clock.advance(40 * 24 * 3600);
      await closePeriod(s.composed.deps, { period: month, tenantId: s.tenantId });
      const invoices = await s.request('GET', '/v1/billing/invoices');
      expect(invoices.json.data.length).toBeGreaterThan(0);
      const keys = await s.request('GET', '/.well-known/presence/keys.json', undefined, '');

      // Online: the original keeps serving while the backup runs.
      const [backup, during] = await Promise.all([
        backupAndRestore(s.testStore.options),
        verifyOne(s.request, 3),
      ]);
      drop = backup.drop;
      await migrateDatabase(backup.options);
      const deps = await depsFromStore(await openStore(backup.options), s.masterKey, s.clock, {
        allowNets: ['127.0.0.0/8'],
        timeoutMs: 2000,
      });
      const config = loadConfig({
        PRESENCE_DATA_DIR: mkdtempSync(join(scratch, 'data-')),
        PRESENCE_DEV_TENANT: 'false',
        PRESENCE_MASTER_KEY: s.masterKey.toString('base64url'),
        PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
      });
      restored = await composeWith(deps, config, false);
      const app = restored.app;
      const call: typeof s.request = async (method, url, body, key = s.apiKey) => {
        const res = await app.inject({
          method,
          url,
          headers: key === '' ? {} : { authorization: `Bearer ${key}` },
          ...(body === undefined ? {} : { payload: body as object }),
        });
        return {
          status: res.statusCode,
          json: res.body === '' ? undefined : res.json(),
          headers: res.headers,
        };
      };

      for (const r of receipts) {
        const check = await call('POST', '/v1/presence/receipts/verify', {
          receiptId: r.receiptId,
          receiptHashHex: r.receiptHashHex,
        });
        expect(check.json.valid, JSON.stringify(check.json)).toBe(true);
      }
      expect((await call('GET', '/.well-known/presence/keys.json', undefined, '')).json).toEqual(keys.json);
      const fresh = await verifyOne(call, 4);
      expect((await call('GET', `/v1/presence/receipts/${fresh.receiptId}`)).status).toBe(200);

      const pack = await app.inject({
        method: 'GET',
        url: `/v1/presence/receipts/export?from=2000-01-01T00:00:00.000Z&to=2100-01-01T00:00:00.000Z`,
        headers: { authorization: `Bearer ${s.apiKey}` },
      });
      expect(pack.statusCode).toBe(200);
      const report = await verifyPack(pack.rawPayload, { keys: keys.json.keys });
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      // The receipt made while the backup ran is in it or not, consistently.
      const duringKept = (await call('GET', `/v1/presence/receipts/${during.receiptId}`)).status === 200;
      expect(report).toMatchObject({ valid: true, receipts: duringKept ? 4 : 3 });

      const before = receiver.received.length;
      const job = restored.jobs.find((j) => j.name === 'webhooks')!;
      for (let i = 0; i < 3; i++) await job.run();
      await receiver.waitFor(before + 1, 10_000);
      const got = receiver.received.find((r) => JSON.parse(r.body).data?.receiptId === fresh.receiptId)!;
      expect(got).toBeDefined();
      const event = verifyWebhook({
        secret: endpoint.secret,
        headers: got.headers as Record<string, string>,
        rawBody: got.body,
        now: s.clock.now(),
      });
      expect(event.type).toBe('receipt.created');
      if (event.type !== 'receipt.created') throw new Error('not a receipt.created event');
      expect(event.data.receiptId).toBe(fresh.receiptId);

      expect((await call('GET', usageUrl)).json.totals).toEqual(
        (await s.request('GET', usageUrl)).json.totals,
      );
      const finalized = (list: { data: { invoiceId: string }[] }) =>
        list.data.filter((i) => !i.invoiceId.startsWith('draft_'));
      expect(finalized(invoices.json).length).toBeGreaterThan(0);
      expect(finalized((await call('GET', '/v1/billing/invoices')).json)).toEqual(finalized(invoices.json));
    },
    60_000,
  );
});

function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 1)).toISOString();
}
