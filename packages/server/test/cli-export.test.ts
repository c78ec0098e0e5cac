/**
 * `presence export` over HTTP: against the real service (a pack of real receipts, summary from
 * its manifest), and against a local server that misbehaves (an error status, a stream cut in
 * the middle): the output file is the whole pack or nothing, and no partial file is left behind.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { computeActionHashSync } from '@presence/sdk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatBytes, formatRate } from '../src/cli/progress-line.js';
import { runExport, type RemoteIo } from '../src/cli/remote-commands.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

function capture(isTTY = false) {
  const out: string[] = [];
  const err: string[] = [];
  const io: RemoteIo = {
    env: {},
    stdout: { write: (t: string) => out.push(t) },
    stderr: { write: (t: string) => err.push(t), isTTY },
  };
  return { io, out, err };
}

describeEachDialect('presence export against the service', (dialect) => {
  const s = useTestService(dialect);
  let url: string;
  let dir: string;
  const from = new Date(Date.now() - 3600_000).toISOString();
  const to = new Date(Date.now() + 3600_000).toISOString();

  beforeAll(async () => {
    url = await s.listen();
    dir = mkdtempSync(join(tmpdir(), 'presence-export-'));
    const { authenticator } = await s.enroll('export-user');
    for (let i = 0; i < 3; i++) {
      const challenge = await s.request('POST', '/v1/presence/challenge', {
        actionHashHex: computeActionHashSync({ export: i }),
        subject: 'export-user',
      });
      const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
      const verified = await s.request('POST', '/v1/presence/verify', {
        challengeId: challenge.json.challengeId,
        assertion,
      });
      expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the pack and prints a summary whose count and hash match the file', async () => {
    const { io, out, err } = capture();
    io.env = { PRESENCE_API_KEY: s.apiKey };
    const file = join(dir, 'pack.zip');
    const code = await runExport(['--url', url, '--from', from, '--to', to, '--out', file, '--json'], io);
    expect(code).toBe(0);
    const summary = JSON.parse(out.join(''));
    const bytes = readFileSync(file);
    expect(summary).toMatchObject({ file, receipts: 3, bytes: bytes.length });
    expect(summary.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(readdirSync(dir)).toEqual(['pack.zip']);
    // Off a terminal: whole lines, every figure rounded (no long fractions in CI logs).
    expect(err.join('')).toMatch(
      /^export pack\.zip: \d+(\.\d)? (B|KiB|MiB)( \(\d+%\))? at \d+(\.\d)? (B|KiB|MiB)\/s\n$/m,
    );
  });

  it('draws progress with carriage returns on a terminal and prints a readable summary', async () => {
    const { io, out, err } = capture(true);
    const file = join(dir, 'tty.zip');
    const code = await runExport(
      [
        '--url',
        url,
        '--api-key',
        s.apiKey,
        '--from',
        from,
        '--to',
        to,
        '--out',
        file,
        '--subject',
        'export-user',
      ],
      io,
    );
    expect(code).toBe(0);
    expect(err.join('')).toMatch(/^\rexport tty\.zip: /);
    expect(out.join('')).toMatch(/receipts {2}3\n/);
    expect(out.join('')).toMatch(/sha256 {4}[0-9a-f]{64}/);
    expect(out.join('')).toContain(
      `check it with:\n  curl -fsS ${url}/.well-known/presence/keys.json -o keys.json\n  npx presence-verify ${file} --keys keys.json\n`,
    );
  });

  it('refuses to overwrite without --force, and a key without receipts:export leaves nothing', async () => {
    const file = join(dir, 'pack.zip');
    await expect(
      runExport(
        ['--url', url, '--api-key', s.apiKey, '--from', from, '--to', to, '--out', file],
        capture().io,
      ),
    ).rejects.toThrow(/exists; pass --force/);
    const readOnly = await s.keyWith(['receipts:read']);
    const denied = join(dir, 'denied.zip');
    await expect(
      runExport(
        ['--url', url, '--api-key', readOnly, '--from', from, '--to', to, '--out', denied],
        capture().io,
      ),
    ).rejects.toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(readdirSync(dir).sort()).toEqual(['pack.zip', 'tty.zip']);
  });

  it('answers bad arguments with usage and exit code 2', async () => {
    const { io, err } = capture();
    expect(await runExport(['--url', url, '--from', 'yesterday', '--to', to, '--out', 'x.zip'], io)).toBe(2);
    expect(err.join('')).toContain('usage: presence export');
  });
});

describe('presence export when the transfer breaks', () => {
  let server: Server;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'presence-export-cut-'));
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/zip' });
      res.write(Buffer.alloc(64 * 1024, 7));
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('removes the partial file and keeps an existing pack untouched when the stream is cut', async () => {
    const file = join(dir, 'pack.zip');
    writeFileSync(file, 'previous pack');
    const args = [
      '--url',
      url,
      '--api-key',
      'prs_x',
      '--from',
      '2026-01-01T00:00:00Z',
      '--to',
      '2026-02-01T00:00:00Z',
    ];
    await expect(runExport([...args, '--out', file, '--force'], capture().io)).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['pack.zip']);
    expect(readFileSync(file, 'utf8')).toBe('previous pack');
  });
});

describe('progress figures', () => {
  it('are rounded at every size', () => {
    expect(formatBytes(512.3333)).toBe('512 B');
    expect(formatRate(1000, 3)).toBe('325.5 KiB/s');
    expect(formatRate(1, 3000)).toBe('0 B/s');
  });
});
