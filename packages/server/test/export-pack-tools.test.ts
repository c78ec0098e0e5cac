/**
 * A pack checked with nothing but unzip, sha256sum and openssl: every command of the pack's own
 * VERIFY.txt runs here as written. Then the SDK's `presence-verify` bin and `presence verify-pack`,
 * whose exit status and PASS/FAIL lines are what an auditor's script relies on.
 */
import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { evidenceCommands } from '../src/cli/evidence-commands.js';
import { fetchPack, publishedKeys, unzipPack, zipFiles } from './support/export-pack.js';
import { seedReceipts } from './support/seed-receipts.js';
import { useTestService } from './support/test-service.js';

const BASE = Date.now() + 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const BIN = fileURLToPath(new URL('../../sdk/dist/bin/presence-verify.js', import.meta.url));
const TOOLS = ['unzip', 'sha256sum', 'openssl', 'sed', 'grep', 'base64', 'bash'];
const missing = TOOLS.filter((t) => spawnSync('which', [t]).status !== 0);
if (missing.length > 0) console.warn(`skipping the command-line checks: ${missing.join(', ')} not installed`);

describe('an export pack checked with standard tools and the offline verifier bin', () => {
  const s = useTestService('sqlite');
  let dir: string;
  let keyPem: string;
  beforeAll(async () => {
    const { authenticator } = await s.enroll('alice');
    await seedReceipts(s.composed.deps, s.tenantId, authenticator, 5, { issuedAt: (i) => BASE + i * 1000 });
    dir = mkdtempSync(join(tmpdir(), 'presence-pack-'));
    writeFileSync(
      join(dir, 'pack.zip'),
      (await fetchPack(s, `from=${iso(BASE)}&to=${iso(BASE + 60_000)}`)).zip,
    );
    const keys = await publishedKeys(s);
    keyPem = keys[0].publicKeyPem;
    writeFileSync(join(dir, 'keys.json'), JSON.stringify({ keys }));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const bash = (script: string, cwd: string) =>
    spawnSync('bash', ['-euo', 'pipefail', '-c', script], { cwd, encoding: 'utf8' });

  it.skipIf(missing.length > 0)('every command in VERIFY.txt passes on the real pack', async () => {
    const work = mkdtempSync(join(dir, 'audit-'));
    writeFileSync(join(work, 'pack.zip'), await readPack());
    writeFileSync(join(work, 'key.pem'), keyPem);
    const text = (await unzipPack(await readPack())).get('VERIFY.txt')!.toString();
    const commands = text
      .split('\n')
      .filter((l) => l.startsWith('  $ '))
      .map((l) => l.slice(4));
    expect(commands.length).toBeGreaterThanOrEqual(10);
    for (const command of commands) {
      const run = bash(command, work);
      expect(run.status, `${command}\n${run.stdout}${run.stderr}`).toBe(0);
    }
  });

  it.skipIf(missing.length > 0)(
    'the same commands fail on a changed receipt line or another key',
    async () => {
      const files = await unzipPack(await readPack());
      const lines = files.get('receipts.ndjson')!.toString();
      const tampered = [...files].map(([n, b]): [string, Buffer] => [
        n,
        n === 'receipts.ndjson' ? Buffer.from(lines.replace('"purpose":"seeded"', '"purpose":"seedeD"')) : b,
      ]);
      const work = mkdtempSync(join(dir, 'tampered-'));
      writeFileSync(join(work, 'pack.zip'), await zipFiles(tampered));
      writeFileSync(join(work, 'key.pem'), keyPem);
      expect(
        bash(
          'unzip -q -o pack.zip && grep -o \'"name":"[^"]*","sha256":"[0-9a-f]*"\' manifest.json | sed \'s/"name":"\\([^"]*\\)","sha256":"\\([0-9a-f]*\\)"/\\2  \\1/\' > SHA256SUMS && sha256sum -c SHA256SUMS',
          work,
        ).status,
      ).not.toBe(0);
      const { publicKey } = generateKeyPairSync('ed25519');
      writeFileSync(join(work, 'key.pem'), publicKey.export({ format: 'pem', type: 'spki' }).toString());
      const sig = `sed -n 's/.*"signatureB64Url":"\\([A-Za-z0-9_-]*\\)".*/\\1==/p' manifest.sig.json | tr '_-' '/+' | base64 -d > manifest.sig && openssl pkeyutl -verify -pubin -inkey key.pem -rawin -in manifest.json -sigfile manifest.sig`;
      expect(bash(sig, work).status).not.toBe(0);
    },
  );

  it('presence-verify prints PASS per check and exits 0; FAIL and 1 for a tampered pack; 2 without a key', async () => {
    const ok = spawnSync(process.execPath, [BIN, join(dir, 'pack.zip'), '--keys', join(dir, 'keys.json')], {
      encoding: 'utf8',
    });
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toMatch(/^PASS {2}manifest\.signature/m);
    expect(ok.stdout).toMatch(/^VERDICT: PASS .* 5 receipt\(s\)/m);
    writeFileSync(join(dir, 'key.pem'), keyPem);
    expect(
      spawnSync(process.execPath, [BIN, join(dir, 'pack.zip'), '--key', join(dir, 'key.pem')]).status,
    ).toBe(0);
    const files = await unzipPack(await readPack());
    const bad = [...files].filter(([n]) => n !== 'trust.snapshot.json');
    writeFileSync(join(dir, 'bad.zip'), await zipFiles(bad));
    const failed = spawnSync(
      process.execPath,
      [BIN, join(dir, 'bad.zip'), '--keys', join(dir, 'keys.json')],
      { encoding: 'utf8' },
    );
    expect(failed.status).toBe(1);
    expect(failed.stdout).toMatch(/^FAIL {2}files\.present +missing trust\.snapshot\.json/m);
    expect(failed.stdout).toMatch(/^VERDICT: FAIL/m);
    expect(spawnSync(process.execPath, [BIN, join(dir, 'pack.zip')]).status).toBe(2);
  });

  it('presence verify-pack runs the same verifier', async () => {
    const out: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      const code = await evidenceCommands['verify-pack']!.run([
        join(dir, 'pack.zip'),
        '--keys',
        join(dir, 'keys.json'),
      ]);
      expect(code).toBe(0);
    } finally {
      spy.mockRestore();
    }
    expect(out.join('')).toMatch(/^VERDICT: PASS/m);
  });

  async function readPack(): Promise<Buffer> {
    return readFileSync(join(dir, 'pack.zip'));
  }
});
