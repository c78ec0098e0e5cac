/**
 * An auditor's `presence-verify pack.zip --since checkpoint.txt` on a pack exported WITHOUT
 * `logSince`: the pack cannot prove its checkpoint extends the saved one, which is UNPROVEN (not
 * INCONSISTENT) and says what to do; with `--url` the verifier fetches the consistency proof from
 * the service and checks it against both signed checkpoints, trusting only the math.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { verifyPack } from '@presence/sdk/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { fetchPack, publishedKeys } from './support/export-pack.js';
import { describeEachDialect } from './support/each-dialect.js';
import { fetchCheckpoint, integrateNow } from './support/receipt-log.js';
import { seedReceipts } from './support/seed-receipts.js';
import { startTestService, type TestService } from './support/test-service.js';

const VERIFY_BIN = fileURLToPath(new URL('../../sdk/dist/bin/presence-verify.js', import.meta.url));
const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const RANGE = `from=${iso(BASE)}&to=${iso(BASE + 3_600_000)}`;
const run = promisify(execFile);

describeEachDialect('presence-verify --since on a pack without logSince', (dialect) => {
  let s: TestService;
  let dir: string;
  let url: string;
  beforeAll(async () => {
    s = await startTestService(dialect);
    const { authenticator } = await s.enroll('auditor-case');
    url = await s.listen();
    dir = mkdtempSync(join(tmpdir(), 'presence-since-'));
    await seedReceipts(s.composed.deps, s.tenantId, authenticator, 5, { issuedAt: (i) => BASE + i });
    await integrateNow(s);
    writeFileSync(join(dir, 'checkpoint.txt'), (await fetchCheckpoint(s)).text);
    await seedReceipts(s.composed.deps, s.tenantId, authenticator, 3, { issuedAt: (i) => BASE + 1000 + i });
    await integrateNow(s);
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys: await publishedKeys(s) }));
    writeFileSync(join(dir, 'pack.zip'), (await fetchPack(s, RANGE)).zip);
  });
  afterAll(async () => {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const verify = (...extra: string[]) =>
    run(
      process.execPath,
      [VERIFY_BIN, 'pack.zip', '--keys', 'keys.json', '--since', 'checkpoint.txt', ...extra],
      {
        cwd: dir,
        env: { ...process.env, PRESENCE_API_KEY: s.apiKey },
      },
    ).then(
      (r) => ({ code: 0, out: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
    );

  it('says UNPROVEN, not INCONSISTENT, and what to do', async () => {
    const { code, out } = await verify();
    expect(code).toBe(1);
    expect(out).not.toMatch(/INCONSISTENT/);
    expect(out).toMatch(
      /UNPROVEN, not inconsistent: the pack proves 8 → 8, not from your saved checkpoint \(5\)/,
    );
    expect(out).toContain('Export the pack with logSince=5, or pass --url');
  });

  it('with --url fetches the consistency proof from the service and passes', async () => {
    const { code, out } = await verify('--url', url);
    expect(out).toMatch(/extends the saved one \(5 → 8\)/);
    expect(code).toBe(0);
  });

  it('a fetched proof that does not fit the signed checkpoints is INCONSISTENT', async () => {
    const keys = await publishedKeys(s);
    const saved = readFileSync(join(dir, 'checkpoint.txt'), 'utf8');
    const report = await verifyPack(join(dir, 'pack.zip'), {
      keys,
      since: saved,
      fetchConsistency: async (from, to) => ({ from, to, hashes: [Buffer.alloc(32, 1).toString('base64')] }),
    });
    const check = report.checks.find((c) => c.name === 'log.consistency')!;
    expect(check.ok).toBe(false);
    expect(check.detail).toMatch(/^INCONSISTENT/);
  });
});
