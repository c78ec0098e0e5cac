/**
 * The receipt log against an attacker with full database access, on both databases (issue 9 §4):
 * (a) receipts erased or altered together with the log, which the service then rebuilds and signs
 *     anew, after a witness saw it: the witness reports INCONSISTENT (library and bin), and
 *     presence-verify --since the saved checkpoint fails;
 * (b) a receipt row deleted or altered with the log left alone: a pack covering it fails;
 * (c) a forked checkpoint signed with the real log key: the witness and --since detect it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatCheckpointBody, loadOrCreateWitnessKey, verifyPack, witnessOnce } from '@presence/sdk/node';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { loadLogSigner, logOrigin } from '../src/domain/receipt-log/log-signer.js';
import { fetchPack, publishedKeys } from './support/export-pack.js';
import { attackLog, type LogAttacker } from './support/log-attacker.js';
import { fetchCheckpoint, integrateNow } from './support/receipt-log.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { describeEachDialect } from './support/each-dialect.js';
import { startTestService, type TestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const RANGE = `from=${iso(BASE)}&to=${iso(BASE + 3_600_000)}`;
const WITNESS_BIN = fileURLToPath(new URL('../../sdk/dist/bin/presence-witness.js', import.meta.url));
const failed = (r: { checks: { name: string; ok: boolean }[] }) =>
  r.checks.filter((c) => !c.ok).map((c) => c.name);

describeEachDialect('receipt log under attack', (dialect) => {
  let s: TestService;
  let alice: SoftAuthenticator;
  let url: string;
  let dir: string;
  let attacker: LogAttacker;
  let keys: any[];
  beforeAll(async () => {
    s = await startTestService(dialect);
    ({ authenticator: alice } = await s.enroll('alice'));
    url = await s.listen();
    dir = mkdtempSync(join(tmpdir(), 'presence-witness-'));
    attacker = await attackLog(s);
  });
  afterAll(async () => {
    await attacker.close();
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  let round = 0;
  let witnessDir: string;
  const witness = () =>
    witnessOnce({
      url,
      apiKey: s.apiKey,
      stateDir: join(witnessDir, 'state'),
      key: loadOrCreateWitnessKey(join(dir, 'witness.key'), 'witness.example/tenant-1').key,
    });
  const seed = async (n: number) => {
    await seedReceipts(s.composed.deps, s.tenantId, alice, n, {
      issuedAt: (i) => BASE + round * 10_000 + i,
    });
    round += 1;
    await integrateNow(s);
  };
  beforeEach(async () => {
    witnessDir = mkdtempSync(join(dir, 'w-'));
    // Each scenario starts from a fresh, honest log of this tenant.
    await attacker.db.deleteFrom('receipts').where('tenant_id', '=', s.tenantId).execute();
    await attacker.db.deleteFrom('tenant_counters').where('tenant_id', '=', s.tenantId).execute();
    await attacker.wipeLog();
    await seed(20);
    keys = await publishedKeys(s);
    expect(await witness()).toMatchObject({ status: 'cosigned', treeSize: 20, previousSize: null });
  });

  it('(a) an erased receipt, log rebuilt and re-signed, is INCONSISTENT for the witness and for --since', async () => {
    const saved = (await fetchCheckpoint(s)).text;
    await attacker.eraseReceipt(7);
    await attacker.wipeLog();
    await seed(5); // the rebuilt log outgrows what the witness saw: 24 leaves
    expect((await fetchCheckpoint(s)).text).toMatch(/\n24\n/);
    const outcome = await witness();
    expect(outcome).toMatchObject({ status: 'inconsistent' });
    expect((outcome as { reason: string }).reason).toMatch(/does not extend the one of 20/);
    const pack = await fetchPack(s, `${RANGE}&logSince=20`);
    expect(pack.status).toBe(200);
    const report = await verifyPack(pack.zip, { keys, since: saved });
    expect(failed(report)).toEqual(['log.consistency']);
    expect(report.checks.find((c) => c.name === 'log.consistency')!.detail).toMatch(/^INCONSISTENT/);
    // The same pack without --since is internally consistent: only the saved checkpoint exposes the rewrite.
    expect((await verifyPack(pack.zip, { keys })).valid).toBe(true);
  });

  it('(a) an erased receipt that leaves the log smaller is INCONSISTENT: the log shrank', async () => {
    await attacker.eraseReceipt(3);
    await attacker.wipeLog();
    await integrateNow(s);
    expect(await witness()).toMatchObject({
      status: 'inconsistent',
      reason: expect.stringMatching(/shrank from 20 to 19/),
    });
  });

  it('(a) an altered receipt hash, log rebuilt, is a fork at the same size; the bin exits 1 with INCONSISTENT', async () => {
    await attacker.setReceiptHash(5, 'ab'.repeat(32));
    await attacker.wipeLog();
    await integrateNow(s);
    const env = { ...process.env, PRESENCE_API_KEY: s.apiKey };
    // Asynchronously: the service answering the bin runs in this very process.
    const run = await promisify(execFile)(
      process.execPath,
      [
        WITNESS_BIN,
        '--url',
        url,
        '--state',
        join(witnessDir, 'state'),
        '--key',
        join(dir, 'witness.key'),
        '--once',
      ],
      { env, encoding: 'utf8' },
    ).then(
      (r) => ({ status: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        status: e.code,
        stdout: e.stdout,
        stderr: e.stderr,
      }),
    );
    expect(run.status, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toMatch(/^INCONSISTENT two different roots for 20 leaves/m);
  });

  it('(b) a receipt row deleted with the log left alone fails the pack: a leaf without its receipt', async () => {
    await attacker.deleteReceiptRow(9);
    const report = await verifyPack((await fetchPack(s, RANGE)).zip, { keys });
    expect(failed(report)).toEqual(['log.coverage']);
    expect(report.checks.find((c) => c.name === 'log.coverage')!.detail).toMatch(/leaves 8…8 are in the log/);
  });

  it('(b) a receipt hash altered with the log left alone fails the pack: its hash is not the leaf', async () => {
    const [row] = await attacker.db
      .selectFrom('receipts')
      .select(['canonical_json'])
      .where('tenant_id', '=', s.tenantId)
      .where('seq', '=', 4)
      .execute();
    const altered = row!.canonical_json.replace('"purpose":"seeded"', '"purpose":"SEEDED"');
    const { createHash } = await import('node:crypto');
    await attacker.db
      .updateTable('receipts')
      .set({ canonical_json: altered, hash_hex: createHash('sha256').update(altered).digest('hex') })
      .where('tenant_id', '=', s.tenantId)
      .where('seq', '=', 4)
      .execute();
    const report = await verifyPack((await fetchPack(s, RANGE)).zip, { keys });
    expect(failed(report)).toContain('log.inclusion');
    expect(report.checks.find((c) => c.name === 'log.inclusion')!.detail).toMatch(/line 4 /);
  });

  it('(c) a forked checkpoint signed with the real log key is detected by the witness and by --since', async () => {
    const genuine = (await fetchCheckpoint(s)).text;
    const signer = await loadLogSigner(s.composed.deps);
    const origin = logOrigin(s.composed.deps.logOrigin, s.tenantId);
    const forgedRoot = Buffer.alloc(32, 0x42);
    const forged = signer.signCheckpoint(origin, formatCheckpointBody(origin, 20, forgedRoot));
    await attacker.db
      .updateTable('receipt_log_checkpoints')
      .set({ note: forged, root_hash: forgedRoot })
      .where('tenant_id', '=', s.tenantId)
      .where('tree_size', '=', 20)
      .execute();
    expect((await fetchCheckpoint(s)).text.startsWith(forged)).toBe(true);
    expect(await witness()).toMatchObject({
      status: 'inconsistent',
      reason: expect.stringMatching(/a fork/),
    });
    const pack = (await fetchPack(s, RANGE)).zip;
    const report = await verifyPack(pack, { keys, since: genuine });
    expect(failed(report)).toEqual(expect.arrayContaining(['log.inclusion', 'log.consistency']));
  });
});
