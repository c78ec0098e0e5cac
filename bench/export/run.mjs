// bench/export: export N receipts of one tenant over HTTP from a real server process, and beside
// it, in the same run, `zip -1` over the same (unzipped) files as the ceiling.
//   node bench/export/run.mjs [--receipts 1000000] [--db sqlite|postgres] [--exports 1] [--verify]   (after `npm run build`)
// PostgreSQL: a fresh database next to PRESENCE_TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// dropped at the end.
// BENCH_NODE_FLAGS='--max-old-space-size=128' passes V8 flags to the server process; the server
// also gets this process's environment, so PRESENCE_EXPORT_HEAP_GROWTH_MB=0 measures without the
// export heap budget (docs/adr/0014-export-heap-budget.md).
// Prints throughput (MB/s of pack content and of zip bytes), the server's RSS when the export
// starts and its peak (VmHWM) during it, and the ceiling; --verify also runs the offline verifier
// over the whole pack. --exports N exports N times over the same seeded data, each time from a new
// server process, and prints the median with every run's figures (the peak depends on when V8
// happens to run its full collections, so one run is one sample).
/* global console, process, performance, setTimeout, setInterval, clearInterval, fetch, URL */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { seedReceipts } from './seed-receipts.mjs';

const MAIN = fileURLToPath(new URL('../../packages/server/dist/main.js', import.meta.url));
const VERIFY_BIN = fileURLToPath(new URL('../../packages/sdk/dist/bin/presence-verify.js', import.meta.url));
const MB = 1e6;
const { values } = parseArgs({
  options: {
    receipts: { type: 'string', default: '1000000' },
    db: { type: 'string', default: 'sqlite' },
    verify: { type: 'boolean' },
    keep: { type: 'boolean' },
    exports: { type: 'string', default: '1' },
  },
});
const log = (line) => process.stderr.write(`${line}\n`);

const dir = mkdtempSync(join(tmpdir(), 'presence-bench-export-'));
const masterKey = randomBytes(32);
const adminUrl = process.env.PRESENCE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const pgDatabase = `presence_bench_${randomBytes(4).toString('hex')}`;
const databaseUrl = values.db === 'postgres' ? await createDatabase(adminUrl, pgDatabase) : undefined;
try {
  const receipts = Number(values.receipts);
  log(`seeding ${receipts} receipts into ${dir} …`);
  const seedStart = performance.now();
  const sqlitePath = join(dir, 'presence.sqlite');
  const seeded = await seedReceipts({ sqlitePath, databaseUrl, masterKey, receipts, log });
  log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);
  // Production integrates receipts into the log as they are issued (the worker's log job);
  // seeded receipts are not, so one server integrates them all first. A second, fresh server then
  // exports, so the figures are the export's own, not what integrating N leaves at once left behind.
  const integrating = await startServer(dir, masterKey, databaseUrl);
  let integration;
  try {
    integration = await waitForLog(integrating, seeded, receipts);
  } finally {
    await stopServer(integrating);
  }
  log(
    `receipt log integrated in ${integration.seconds.toFixed(0)} s, peak RSS ${integration.peakRssMB.toFixed(0)} MB`,
  );
  const rounds = [];
  let server;
  for (let round = 0; round < Number(values.exports); round++) {
    server = await startServer(dir, masterKey, databaseUrl);
    try {
      rounds.push(await exportOverHttp(server, seeded, join(dir, 'pack.zip')));
    } finally {
      await stopServer(server);
    }
    log(`export ${round + 1}: ${JSON.stringify(rounds.at(-1))}`);
  }
  const median = (pick) => rounds.map(pick).sort((a, b) => a - b)[Math.floor((rounds.length - 1) / 2)];
  const exported = {
    seconds: median((r) => r.seconds),
    zipBytes: rounds[0].zipBytes,
    peakRssMB: median((r) => r.peakRssMB),
    rssBeforeMB: median((r) => r.rssBeforeMB),
    integration,
  };
  const ceiling = zipCeiling(dir);
  const verified = values.verify ? await verifyWhole(join(dir, 'pack.zip'), server.keys) : undefined;
  const result = {
    database: values.db,
    receipts,
    packBytes: exported.zipBytes,
    contentBytes: ceiling.contentBytes,
    exportSeconds: exported.seconds,
    exportContentMBps: ceiling.contentBytes / MB / exported.seconds,
    exportZipMBps: exported.zipBytes / MB / exported.seconds,
    serverPeakRssMB: exported.peakRssMB,
    serverRssBeforeMB: exported.rssBeforeMB,
    rounds: rounds.map((r) => ({ seconds: r.seconds, rssBeforeMB: r.rssBeforeMB, peakRssMB: r.peakRssMB })),
    logIntegrationSeconds: exported.integration.seconds,
    logIntegrationPeakRssMB: exported.integration.peakRssMB,
    zip1Seconds: ceiling.seconds,
    zip1ContentMBps: ceiling.contentBytes / MB / ceiling.seconds,
    zip1Bytes: ceiling.zipBytes,
    ...(verified ?? {}),
  };
  console.log(JSON.stringify(result, null, 2));
  console.log(table(result));
} finally {
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  if (databaseUrl && !values.keep) await dropDatabase(adminUrl, pgDatabase);
}

async function createDatabase(admin, name) {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(admin, name) {
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`drop database if exists ${name} with (force)`);
  await client.end();
}

async function startServer(dataDir, key, databaseUrl) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), MAIN],
    {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: String(port),
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        PRESENCE_DEV_TENANT: 'false',
        PRESENCE_DATA_DIR: dataDir,
        PRESENCE_MASTER_KEY: key.toString('base64url'),
        PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
        PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
        PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const keys = (await (await fetch(`${url}/.well-known/presence/keys.json`)).json()).keys;
  return { child, url, keys };
}

/** Polls the tenant's log checkpoint until it covers every seeded receipt; the peak RSS meanwhile. */
async function stopServer(server) {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

async function waitForLog(server, seeded, receipts) {
  const started = performance.now();
  for (;;) {
    const res = await fetch(`${server.url}/v1/presence/log/checkpoint`, {
      headers: { authorization: `Bearer ${seeded.apiKey}` },
    });
    if (!res.ok && res.status !== 404) throw new Error(`log checkpoint: ${res.status} ${await res.text()}`);
    const size = res.ok ? Number((await res.text()).split('\n')[1]) : 0;
    if (size >= receipts) break;
    if (performance.now() - started > 30 * 60_000) throw new Error(`the log reached only ${size} leaves`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const peakRssMB = procKb(server.child.pid, 'VmHWM') / 1000;
  return { seconds: (performance.now() - started) / 1000, peakRssMB };
}

function procKb(pid, field) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/**
 * Streams the pack to a file while sampling the server's RSS. VmHWM is the kernel's peak, reset
 * first (`5` into clear_refs), so it is the export's own peak, not the server's start-up.
 */
async function exportOverHttp(server, seeded, file) {
  writeFileSync(`/proc/${server.child.pid}/clear_refs`, '5');
  const kb = (field) => procKb(server.child.pid, field);
  const rssBeforeMB = kb('VmRSS') / 1000;
  let sampledPeak = 0;
  const sampler = setInterval(() => (sampledPeak = Math.max(sampledPeak, kb('VmRSS'))), 50);
  const query = `from=${new Date(seeded.from).toISOString()}&to=${new Date(seeded.to).toISOString()}`;
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/presence/receipts/export?${query}`, {
    headers: { authorization: `Bearer ${seeded.apiKey}` },
  });
  if (!res.ok) throw new Error(`export failed: ${res.status} ${await res.text()}`);
  await pipeline(Readable.fromWeb(res.body), createWriteStream(file));
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const peakRssMB = Math.max(kb('VmHWM'), sampledPeak) / 1000;
  return { seconds, zipBytes: statSync(file).size, peakRssMB, rssBeforeMB };
}

/** `zip -1` over the unzipped files, one process, the same bytes the export deflated. */
function zipCeiling(dataDir) {
  const files = join(dataDir, 'files');
  run('unzip', ['-q', join(dataDir, 'pack.zip'), '-d', files]);
  // Relative paths of every file, log/ included (zip -j stores them by base name, which is unique).
  const names = readdirSync(files, { recursive: true })
    .filter((n) => statSync(join(files, n)).isFile())
    .sort();
  const contentBytes = names.reduce((sum, n) => sum + statSync(join(files, n)).size, 0);
  // Warm the page cache so the ceiling measures compression, not the disk.
  spawnSync(
    'cat',
    names.map((n) => join(files, n)),
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  const started = performance.now();
  run('zip', ['-1', '-q', '-j', join(dataDir, 'ceiling.zip'), ...names.map((n) => join(files, n))]);
  const seconds = (performance.now() - started) / 1000;
  return { contentBytes, seconds, zipBytes: statSync(join(dataDir, 'ceiling.zip')).size };
}

/** The auditor's path: the presence-verify bin as its own process, its peak RSS sampled. */
async function verifyWhole(file, keys) {
  const keysFile = join(dir, 'keys.json');
  writeFileSync(keysFile, JSON.stringify({ keys }));
  const started = performance.now();
  const child = spawn(process.execPath, [VERIFY_BIN, file, '--keys', keysFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  let peakKb = 0;
  const sampler = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      peakKb = Math.max(peakKb, Number(hwm ?? 0));
    } catch {
      // exited between samples
    }
  }, 200);
  const code = await new Promise((resolve) => child.once('exit', resolve));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`the pack did not verify:\n${out}`);
  const receipts = Number(/(\d+) receipt\(s\)/.exec(out)?.[1] ?? 0);
  return {
    verifySeconds: seconds,
    verifyReceiptsPerSecond: receipts / seconds,
    verifyPeakRssMB: peakKb / 1000,
  };
}

function run(command, args) {
  const result = spawnSync(command, args, { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${command} failed`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

function table(r) {
  const f = (n, d = 1) => n.toFixed(d);
  return [
    '',
    `| database | receipts | pack (zip) | content | export | export MB/s (content / zip) | server RSS: start → export peak | zip -1 | zip -1 MB/s (content) |`,
    `|---|---|---|---|---|---|---|---|---|`,
    `| ${r.database} | ${r.receipts} | ${f(r.packBytes / MB)} MB | ${f(r.contentBytes / MB)} MB | ${f(r.exportSeconds)} s | ${f(r.exportContentMBps)} / ${f(r.exportZipMBps)} | ${f(r.serverRssBeforeMB, 0)} → ${f(r.serverPeakRssMB, 0)} MB | ${f(r.zip1Seconds)} s (${f(r.zip1Bytes / MB)} MB) | ${f(r.zip1ContentMBps)} |`,
    r.rounds.length < 2
      ? ''
      : `medians of ${r.rounds.length} exports, each from a new server: ${r.rounds.map((x) => `${f(x.seconds)} s, ${f(x.rssBeforeMB, 0)} → ${f(x.peakRssMB, 0)} MB`).join('; ')}`,
    r.verifySeconds === undefined
      ? ''
      : `presence-verify: ${f(r.verifySeconds)} s, ${f(r.verifyReceiptsPerSecond, 0)} receipts/s, peak RSS ${f(r.verifyPeakRssMB, 0)} MB`,
  ].join('\n');
}
