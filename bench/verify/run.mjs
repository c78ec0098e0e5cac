// Run: npm run build && node bench/verify/run.mjs [--seconds 10] [--concurrency 16] [--db sqlite|postgres|both]
//   more: [--db all | a comma list of sqlite,postgres,sqlite-tmpfs,postgres-nosync] [--warmup 1]
//         [--max-count 500000] [--pg-url postgres://postgres@127.0.0.1:5432] [--micro-ms 1000]
//         [--profile <dir>]  (server started with --cpu-prof; prints where the verification time goes)
//         [--json <file>]    (all figures, machine-readable)
//         [--light-concurrency 4]  (the light-load latency phase)
//         [--scale-rounds 1]  (PostgreSQL: one vs two server processes, 1 and 16 tenants; 0 skips)
//         [--scale-cpu-quota <cores>]  (scale phase: each server process capped at this much CPU by a
//                            cgroup, so a small machine has cores left for PostgreSQL; needs root)
//         [--scale-cpu-period-ms 4]  (the cap's CFS period: each capped process runs cores × period ms,
//                            then waits out the period)
//         [--scale-second-warmup 20000]  (verifications the second process serves, uncapped, first)
//         [--scale-pin 0,1]  (scale phase: the first server process pinned to CPU 0, the second to CPU 1)
// Method and the latest figures: docs/performance.md.
//
// Presence verify throughput, end to end over HTTP, next to a ceiling measured in the same run:
//   1. micro-benchmarks (in process): raw ECDSA P-256 verify with a cached KeyObject vs
//      @simplewebauthn/server verifyAuthenticationResponse vs the service's verifyAssertion; the cost
//      of one durable commit on this disk.
//   2. per database: a real server process (packages/server/dist/main.js), a fresh tenant, two
//      enrolled software authenticators per connection; then
//        creations:     POST /v1/presence/challenge, closed loop, `concurrency` keep-alive connections
//        verifications: POST /v1/presence/verify with assertions signed BEFORE the phase starts
//                       (each one settles a challenge and commits a signed receipt durably)
//        ceiling:       the same Fastify, same client, concurrency and body: one raw verify per request
//        light load:    verifications at 4 connections (latency when not saturated)
//        scale (PostgreSQL): a second server process on the same database; verifications for ONE
//                       tenant and for 16 tenants through one process, then through both
//                       (--scale-cpu-quota: each process capped, so that on a small machine the
//                       question is the design's per-tenant locks, not the cores left over)
//      sqlite-tmpfs and postgres-nosync are not durable; they only show what the durable commit costs.
// The load generator is this process; each server is a separate process. Every phase is bounded by
// time and count; child processes, temp dirs and the PostgreSQL database are removed even on failure.
// Speed targets are read from these figures, never asserted in timed tests.
/* global URL, process, console, setTimeout, clearTimeout, fetch, performance, Buffer, AbortSignal */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from '../free-port.mjs';
import { createBenchDatabase } from '../pg-database.mjs';
import { combineRuns, runLoad } from './load.mjs';
import { capCpu, pinCpu } from './cpu-quota.mjs';
import { durabilityMicro, signatureMicro } from './micro.mjs';
import { printProfile, summariseProfile } from './profile-summary.mjs';
import { SoftAuthenticator } from './soft-authenticator.mjs';
import { makeSupply, verifyAcross } from './supply.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SERVER = join(ROOT, 'packages/server/dist/main.js');
const CLI = join(ROOT, 'packages/server/dist/cli/main.js');
const CEILING = join(ROOT, 'bench/verify/ceiling-server.mjs');
const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';
// The servers' /metrics bearer token (the scale phase reads one counter).
const METRICS_TOKEN = randomBytes(24).toString('base64url');
// Issue 10's targets for verify ÷ ceiling, by database (durable variants only).
const TARGETS = { sqlite: 0.25, postgres: 0.12 };
const BENCH_PLAN = {
  name: 'bench',
  currency: 'EUR',
  currencyExponent: 2,
  monthlyChallengeQuota: 1_000_000_000,
  meters: {},
};

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '16' },
    db: { type: 'string', default: 'both' },
    warmup: { type: 'string', default: '1' },
    'max-count': { type: 'string', default: '500000' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432' },
    'micro-ms': { type: 'string', default: '1000' },
    profile: { type: 'string' },
    json: { type: 'string' },
    // PostgreSQL only: one vs two server processes, for one tenant and for 16 tenants (0: skip).
    'scale-rounds': { type: 'string', default: '1' },
    // The scale phase only: every server process capped at this many cores (cpu-quota.mjs).
    'scale-cpu-quota': { type: 'string' },
    // The cap's CFS period in ms (cpu-quota.mjs): the capped process runs for quota = cores × period,
    // then waits out the rest of the period.
    'scale-cpu-period-ms': { type: 'string' },
    // Verifications the scale phase's second process serves, uncapped, before it is measured.
    'scale-second-warmup': { type: 'string', default: '20000' },
    // The scale phase only: a CPU for each server process, e.g. 0,1 (taskset), as on hosts of their own.
    'scale-pin': { type: 'string' },
    'light-concurrency': { type: 'string', default: '4' },
  },
});
const seconds = Number(args.seconds);
const concurrency = Number(args.concurrency);
const warmupMs = Number(args.warmup) * 1000;
const maxCount = Number(args['max-count']);
const microMs = Number(args['micro-ms']);
// sqlite-tmpfs and postgres-nosync are NOT durable: they exist only to attribute the cost of the
// durable commit (SQLite on /dev/shm makes fsync free; synchronous_commit=off on the bench database).
const VARIANTS = ['sqlite', 'postgres', 'sqlite-tmpfs', 'postgres-nosync'];
const databases =
  args.db === 'both' ? ['sqlite', 'postgres'] : args.db === 'all' ? VARIANTS : args.db.split(',');
if (!(seconds > 0 && seconds <= 300)) throw new Error('--seconds must be in (0, 300]');
if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 256))
  throw new Error('--concurrency must be 1..256');
if (!(maxCount >= 100 && maxCount <= 5_000_000)) throw new Error('--max-count must be 100..5000000');
if (!databases.every((d) => VARIANTS.includes(d)))
  throw new Error(`--db must be both, all or a comma list of ${VARIANTS.join(', ')}`);

// ---------------------------------------------------------------- cleanup of everything we start
const children = new Set();
const cleanups = [];
let cleaning = null;
async function cleanupAll() {
  cleaning ??= (async () => {
    for (const child of [...children]) await stopChild(child, 5000);
    for (const fn of cleanups.splice(0).reverse())
      await fn().catch((e) => console.error(`cleanup: ${e.message}`));
  })();
  return cleaning;
}
let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    interrupted = true;
    console.error(`bench/verify: ${signal}, cleaning up`);
    void cleanupAll().finally(() => process.exit(130));
  });
}
for (const event of ['uncaughtException', 'unhandledRejection']) {
  process.on(event, (error) => {
    console.error(`bench/verify failed: ${error?.stack ?? error}`);
    void cleanupAll().finally(() => process.exit(1));
  });
}

function startChild(file, nodeArgs, env, label) {
  const child = spawn(process.execPath, [...nodeArgs, file], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.label = label;
  child.tail = '';
  const keep = (chunk) => (child.tail = (child.tail + chunk).slice(-4000));
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  child.exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  child.exited.then(() => children.delete(child));
  return child;
}

async function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await child.exited;
  clearTimeout(timer);
}

async function waitReady(child, url, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`${child.label} exited (${child.exitCode}):\n${child.tail}`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${child.label} not ready after ${timeoutMs} ms:\n${child.tail}`);
}

// ---------------------------------------------------------------- CPU accounting (Linux /proc)
const TICK_S = 1 / (Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100);
/** CPU seconds of a process (all its threads), or of one thread: `procCpuS(pid, pid)` is its main thread. */
function procCpuS(pid, thread) {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  try {
    const fields = readFileSync(file, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_S; // utime + stime
  } catch {
    return 0;
  }
}
/** A process's main thread's [voluntary, involuntary] context switches so far. */
function contextSwitches(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(status)?.[1] ?? NaN);
    return [field('voluntary_ctxt_switches'), field('nonvoluntary_ctxt_switches')];
  } catch {
    return [NaN, NaN];
  }
}
/** The bench database's backends and the shared WAL/checkpoint processes, pid → CPU seconds. */
async function postgresCpuS(database) {
  const cpu = new Map();
  if (database === null) return cpu;
  const client = new pg.Client({
    connectionString: `${args['pg-url']}/postgres`,
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select pid from pg_stat_activity
        where datname = $1 or backend_type in ('walwriter', 'checkpointer', 'background writer')`,
      [database],
    );
    for (const { pid } of rows) cpu.set(pid, procCpuS(pid));
  } finally {
    await client.end();
  }
  return cpu;
}
function machineCpu() {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: (total - f[3] - f[4]) * TICK_S, total: total * TICK_S };
}
async function cpuSnapshot(serverPid, database) {
  const postgres = await postgresCpuS(database);
  const c = process.cpuUsage();
  return {
    at: performance.now(),
    monoUs: Number(process.hrtime.bigint() / 1000n),
    server: procCpuS(serverPid),
    // The main thread runs the event loop (HTTP, signatures, JSON); the rest is the SQLite writer
    // thread, libuv's pool and V8's helpers (garbage collection).
    serverMain: procCpuS(serverPid, serverPid),
    client: (c.user + c.system) / 1e6,
    postgres,
    machine: machineCpu(),
  };
}
function cpuBetween(a, b, count) {
  const wall = (b.at - a.at) / 1000;
  const cores = (x) => x / wall;
  let postgres = 0; // backends that started in the window count whole; ones that ended are lost
  for (const [pid, end] of b.postgres) postgres += end - (a.postgres.get(pid) ?? 0);
  const server = b.server - a.server;
  const serverMain = b.serverMain - a.serverMain;
  const client = b.client - a.client;
  const machine = b.machine.busy - a.machine.busy;
  return {
    serverCores: cores(server),
    clientCores: cores(client),
    postgresCores: cores(postgres),
    machineBusyCores: cores(machine),
    // Everything else on this shared machine: other processes' load during the window.
    otherCores: Math.max(0, cores(machine - server - client - postgres)),
    serverCpuUsPerOp: count > 0 ? (server * 1e6) / count : NaN,
    serverMainCpuUsPerOp: count > 0 ? (serverMain * 1e6) / count : NaN,
    postgresCpuUsPerOp: count > 0 ? (postgres * 1e6) / count : NaN,
    fromUs: a.monoUs,
    toUs: b.monoUs,
  };
}

/**
 * What the bench database's backends are doing, sampled every 50 ms: state and wait event
 * ("Lock:transactionid in <statement>" = that statement waits for a row another transaction holds;
 * "idle in transaction after <statement>" = waiting for the server's next statement; "active:CPU" =
 * executing).
 * Average backends per sample.
 */
function samplePgWaits(database) {
  const client = new pg.Client({
    connectionString: `${args['pg-url']}/postgres`,
    connectionTimeoutMillis: 5000,
  });
  const tally = new Map();
  let samples = 0;
  let stopped = false;
  const done = (async () => {
    await client.connect();
    try {
      while (!stopped && samples < 10_000) {
        const { rows } = await client.query(
          `select state, coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait,
                  case when wait_event_type = 'Lock' or state like 'idle in transaction%'
                    then left(btrim(regexp_replace(query, '\\s+', ' ', 'g')), 40) end as blocked,
                  count(*)::int as n
             from pg_stat_activity
            where datname = $1 and pid <> pg_backend_pid() and state <> 'idle'
            group by 1, 2, 3`,
          [database],
        );
        samples++;
        for (const r of rows) {
          const key =
            r.state !== 'active'
              ? `${r.state}${r.blocked ? ` after "${r.blocked}…"` : ''}`
              : r.blocked
                ? `${r.wait} in "${r.blocked}…"`
                : `active:${r.wait}`;
          tally.set(key, (tally.get(key) ?? 0) + r.n);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    } finally {
      await client.end();
    }
  })();
  done.catch(() => undefined); // awaited (and thrown) by the returned stop function
  return async () => {
    stopped = true;
    await done;
    return [...tally.entries()]
      .map(([wait, n]) => ({ wait, backends: n / Math.max(1, samples) }))
      .sort((a, b) => b.backends - a.backends);
  };
}

function averageCpu(a, b) {
  const mean = (k) => (a[k] + b[k]) / 2;
  return {
    ...Object.fromEntries(Object.keys(a).map((k) => [k, mean(k)])),
    fromUs: a.fromUs,
    toUs: b.toUs,
  };
}

/** runLoad plus CPU of server, client, PostgreSQL and machine over the recorded window. */
async function phase(name, serverPid, database, options) {
  let start = null;
  let stopSampler = null;
  const timer = setTimeout(() => {
    start = cpuSnapshot(serverPid, database);
    start.catch(() => undefined); // awaited (and thrown) below
    if (database !== null) stopSampler = samplePgWaits(database);
  }, warmupMs);
  const result = await runLoad({ concurrency, warmupMs, seconds, maxCount, ...options });
  clearTimeout(timer);
  result.pgWaits = stopSampler === null ? null : await stopSampler();
  const end = await cpuSnapshot(serverPid, database);
  result.cpu = cpuBetween((await start) ?? end, end, result.count);
  if (result.errors > 0)
    throw new Error(`${name}: ${result.errors} failed requests, first: ${result.firstError}`);
  if (result.count === 0) throw new Error(`${name}: nothing completed in the measured window`);
  return result;
}

// ---------------------------------------------------------------- one database, end to end
async function benchDatabase(db) {
  const dataDir = mkdtempSync(join(db === 'sqlite-tmpfs' ? '/dev/shm' : tmpdir(), `presence-bench-${db}-`));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  // The built-in free plan caps challenges at 1,000 a month; the bench tenant gets a plan whose quota
  // it never reaches (the quota counter is still taken on every creation, as for a paying tenant).
  const planFile = join(dataDir, 'bench-plan.json');
  writeFileSync(planFile, JSON.stringify(BENCH_PLAN));
  // Production settings: what a deployment runs (no development tenant, no development-only checks).
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_DEV_TENANT: 'false',
    LOG_LEVEL: 'warn',
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
    PRESENCE_BILLING_DEFAULT_PLAN_FILE: planFile,
    // The scale phase reads counters of each server's /metrics (scrapeCounters).
    PRESENCE_METRICS_TOKEN: METRICS_TOKEN,
  };
  delete env.DATABASE_URL;
  let pgName = null;
  if (db.startsWith('postgres'))
    ({ url: env.DATABASE_URL, name: pgName } = await createPgDatabase({
      synchronousCommit: db === 'postgres',
    }));

  const created = spawnSync(
    process.execPath,
    [CLI, 'tenant', 'create', '--name', 'bench', '--rp-id', RP_ID, '--origin', ORIGIN, '--json'],
    {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (created.status !== 0) throw new Error(`tenant create failed: ${created.stderr || created.error}`);
  const { apiKey } = JSON.parse(created.stdout.trim().split('\n').pop());
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const origin = `http://127.0.0.1:${port}`;

  let profileDir = null;
  const nodeArgs = [];
  if (args.profile) {
    profileDir = resolve(args.profile, db);
    mkdirSync(profileDir, { recursive: true });
    nodeArgs.push('--cpu-prof', '--cpu-prof-dir', profileDir);
  }
  // The ceiling: the same Fastify, client, concurrency, headers and a verify-sized body; measured for
  // half a phase before the presence phases and half a phase after them, so drift hits both sides.
  const ceilingServer = startChild(CEILING, [], { ...process.env, PORT: '0' }, 'ceiling server');
  const ceilingPort = await new Promise((ok, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`ceiling server did not start:\n${ceilingServer.tail}`)),
      15_000,
    );
    ceilingServer.stdout.on('data', () => {
      const m = /listening (\d+)/.exec(ceilingServer.tail);
      if (m) {
        clearTimeout(timer);
        ok(Number(m[1]));
      }
    });
    ceilingServer.exited.then(() => fail(new Error(`ceiling server exited:\n${ceilingServer.tail}`)));
  });
  const ceilingBody = JSON.stringify({
    challengeId: `chl_${'0'.repeat(26)}`,
    assertion: new SoftAuthenticator(RP_ID, ORIGIN).assert(randomBytes(32).toString('base64url')),
  });
  const runCeiling = () =>
    phase(`${db} ceiling`, ceilingServer.pid, null, {
      origin: `http://127.0.0.1:${ceilingPort}`,
      headers,
      seconds: seconds / 2,
      next: () => ({ path: '/v1/presence/verify', body: ceilingBody }),
      check: (status, text) => status === 200 && text.includes('"PRESENCE_VERIFIED"'),
    });

  const server = startChild(SERVER, nodeArgs, env, `presence server (${db})`);
  await waitReady(server, `${origin}/readyz`);

  // Two enrolled authenticators (one subject each) per connection; see the verification phase.
  const authenticators = [];
  for (let i = 0; i < 2 * concurrency; i++) {
    const subject = `bench-user-${i}`;
    const options = await postJson(`${origin}/v1/presence/credentials/options`, headers, { subject }, 200);
    const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
    await postJson(
      `${origin}/v1/presence/credentials`,
      headers,
      {
        registrationId: options.registrationId,
        credential: authenticator.register(options.publicKey.challenge),
      },
      201,
    );
    authenticators.push({ subject, authenticator });
  }

  const ceilingBefore = await runCeiling();

  // Challenges go to the subjects in turn, so every credential gets about the same number.
  const issued = authenticators.map(() => []);
  const askedFor = Array.from({ length: concurrency }, () => 0);
  let turn = 0;
  const creationRequest = (w) => {
    const s = (askedFor[w] = turn++ % authenticators.length);
    const actionHashHex = randomBytes(32).toString('hex');
    return {
      path: '/v1/presence/challenge',
      body: `{"actionHashHex":"${actionHashHex}","subject":"${authenticators[s].subject}","ttlSeconds":600}`,
    };
  };
  const creationCheck = (status, text, w) => {
    if (status !== 201) return false;
    const body = JSON.parse(text);
    issued[askedFor[w]].push({ challengeId: body.challengeId, challenge: body.publicKey.challenge });
    return true;
  };
  const creations = await phase(`${db} creations`, server.pid, pgName, {
    origin,
    headers,
    next: creationRequest,
    check: creationCheck,
  });
  // Untimed top-up so the verification phase does not run out of challenges before its time is up:
  // on PostgreSQL verifications now run up to 1.5× faster than creations, so 2.5× what the timed
  // phase created leaves a margin.
  const supply = () => issued.reduce((n, list) => n + list.length, 0);
  const wanted = Math.min(maxCount, Math.ceil(2.5 * supply()));
  if (supply() < wanted) {
    const topUp = await runLoad({
      origin,
      headers,
      concurrency,
      warmupMs: 0,
      seconds,
      maxCount: wanted - supply(),
      next: (w) => (supply() >= wanted ? null : creationRequest(w)),
      check: creationCheck,
    });
    if (topUp.errors > 0) throw new Error(`${db} top-up: ${topUp.errors} failed, first: ${topUp.firstError}`);
  }

  // Sign every assertion now, so the verification phase measures the server only.
  const bodies = issued.map((list, w) =>
    list.map(({ challengeId, challenge }) =>
      JSON.stringify({ challengeId, assertion: authenticators[w].authenticator.assert(challenge) }),
    ),
  );
  // A connection takes the next assertion of any credential that has none in flight: each
  // credential's assertions arrive in signCount order (the counter check passes without retries),
  // and with twice as many credentials as connections none idles until the supply is nearly gone.
  const cursor = bodies.map(() => 0);
  const busy = bodies.map(() => false);
  const holding = Array.from({ length: concurrency }, () => -1);
  let roundRobin = 0;
  const verifications = await phase(`${db} verifications`, server.pid, pgName, {
    origin,
    headers,
    next: (w) => {
      if (holding[w] >= 0) busy[holding[w]] = false; // its previous request has completed
      holding[w] = -1;
      for (let k = 0; k < bodies.length; k++) {
        const s = (roundRobin + k) % bodies.length;
        if (busy[s] || cursor[s] >= bodies[s].length) continue;
        roundRobin = s + 1;
        busy[s] = true;
        holding[w] = s;
        return { path: '/v1/presence/verify', body: bodies[s][cursor[s]++] };
      }
      return null;
    },
    check: (status, text) => status === 200 && JSON.parse(text).decision === 'PRESENCE_VERIFIED',
  });

  // Light load: the latency a caller sees when the service is not saturated.
  const lanes = authenticators.map(({ subject, authenticator }) => ({ headers, subject, authenticator }));
  const light = await lightPhase({ origin, lanes, rate: verifications.opsPerS });
  const scale =
    scaleRounds > 0 && db === 'postgres'
      ? await scalePhases({
          env,
          nodeArgs,
          origin,
          server,
          pgName,
          lanes,
          rate: verifications.opsPerS,
          serverCores: verifications.cpu.serverCores,
        })
      : null;
  await stopChild(server);

  let profile = null;
  if (profileDir) {
    const file = readdirSync(profileDir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(profileDir, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
    if (file) profile = { file, verify: verifications.cpu, create: creations.cpu };
  }

  // The ceiling again, right after; the figure is both runs together.
  const ceilingAfter = await runCeiling();
  await stopChild(ceilingServer);
  const ceiling = combineRuns(ceilingBefore, ceilingAfter);
  ceiling.cpu = averageCpu(ceilingBefore.cpu, ceilingAfter.cpu);

  return {
    db,
    creations,
    verifications,
    light,
    scale,
    ceiling,
    bodyBytes: Buffer.byteLength(ceilingBody),
    profile,
  };
}

const lightConcurrency = Number(args['light-concurrency']);
const scaleRounds = Number(args['scale-rounds']);

/** Enough challenges for one phase at `rate` ops/s (with margin), never more than --max-count. */
function supplyCount(rate) {
  return Math.max(200, Math.min(maxCount, Math.ceil(1.4 * rate * seconds)));
}

/**
 * What the scale phase's second process serves before it is measured: it starts cold. After 3,000
 * it still spent 1.2–1.5× the first process's CPU per verification in every round; after 20,000,
 * 0.9–1.4× (median 1.06×; docs/performance-history.md, twentieth pass).
 */
const SECOND_WARMUP_VERIFICATIONS = Number(args['scale-second-warmup']);

/** --scale-pin: the CPU of the first server process and of the second (none: not pinned). */
const pinTo = args['scale-pin']?.split(',').map(Number) ?? [];
if (pinTo.length !== 0 && !(pinTo.length === 2 && pinTo.every((c) => Number.isInteger(c) && c >= 0)))
  throw new Error('--scale-pin takes two CPU numbers, e.g. 0,1');

async function lightPhase({ origin, lanes, rate }) {
  const used = lanes.slice(0, 2 * lightConcurrency);
  const supply = await makeSupply({ origin, lanes: used, count: supplyCount(rate), concurrency });
  return verifyAcross({
    origins: [origin],
    lanes: used,
    supply,
    concurrency: lightConcurrency,
    warmupMs,
    seconds,
  });
}

/**
 * PostgreSQL: does a second server process add throughput? For ONE tenant (its per-tenant rows are
 * the limit) and for 16 tenants (one per connection). Each pairing is measured in the same round,
 * one process then two; --scale-rounds repeats the rounds and the medians are reported. The second
 * process runs only while two are measured: an idle one would still take part of the background
 * work (webhook fan-out, the receipt log) off the first. It starts cold, so it first serves
 * SECOND_WARMUP_VERIFICATIONS on its own, uncapped, as the first did in the phases before: a cold
 * process spends about twice the CPU per verification until V8 has optimised the path, and more
 * than a warm one for a good while after. With --scale-cpu-quota every server process is capped
 * (cpu-quota.mjs). Each sub-phase records the CPU of the servers and of PostgreSQL, and
 * PostgreSQL's waits, over its recorded window.
 */
async function scalePhases({ env, nodeArgs, origin, server, pgName, lanes, rate, serverCores }) {
  const cores = args['scale-cpu-quota'] === undefined ? null : Number(args['scale-cpu-quota']);
  const periodMs =
    args['scale-cpu-period-ms'] === undefined ? undefined : Number(args['scale-cpu-period-ms']);
  // A capped process verifies about as much less as it has less CPU: size the supplies for that.
  const perProcess = cores === null ? rate : rate * Math.min(1, cores / serverCores);
  const caps = new Map();
  const pins = new Map();
  const uncap = (pid) => {
    caps.get(pid)?.release();
    caps.delete(pid);
    pins.get(pid)?.release();
    pins.delete(pid);
  };
  cleanups.push(async () => [...new Set([...caps.keys(), ...pins.keys()])].forEach(uncap));
  // The i-th server process: capped at `cores`, and with --scale-pin on its CPU.
  const cap = (pid, label, i) => {
    if (cores !== null) caps.set(pid, capCpu(pid, cores, label, periodMs));
    if (pinTo.length !== 0) pins.set(pid, pinCpu(pid, pinTo[i], label));
  };
  cap(server.pid, 'the presence server', 0);
  const manyTenants = await Promise.all(
    Array.from({ length: concurrency }, (_, i) => enrolTenant(env, origin, `bench-${i}`)),
  );
  const many = manyTenants.flat();
  const rounds = [];
  for (let r = 0; r < scaleRounds; r++) {
    const round = {};
    for (const [name, use] of [
      ['oneTenant', lanes],
      ['manyTenants', many],
    ]) {
      for (const processes of [1, 2]) {
        const servers = [server];
        const origins = [origin];
        if (processes === 2) {
          const port = await freePort();
          const second = startChild(
            SERVER,
            nodeArgs,
            { ...env, PORT: String(port) },
            'second presence server',
          );
          origins.push(`http://127.0.0.1:${port}`);
          servers.push(second);
          await waitReady(second, `${origins[1]}/readyz`);
          // Signed before the measured supply, so every credential's counters still arrive in order.
          const warm = await makeSupply({
            origin: origins[1],
            lanes: use,
            count: SECOND_WARMUP_VERIFICATIONS,
            concurrency,
          });
          await verifyAcross({
            origins: [origins[1]],
            lanes: use,
            supply: warm,
            concurrency,
            warmupMs: 0,
            seconds: 60,
          });
          cap(second.pid, 'the second server', 1);
        }
        const supply = await makeSupply({
          origin,
          lanes: use,
          count: supplyCount(perProcess * processes),
          concurrency,
        });
        const pids = servers.map((s) => s.pid);
        // Read while no load runs, so the scrape costs the capped servers nothing in the window.
        const countersBefore = await Promise.all(origins.map(scrapeCounters));
        // CPU is read over the recorded window: from the end of the warm-up to the end.
        let throttledBefore = [];
        let stopSampler = null;
        const before = new Promise((ok, fail) =>
          setTimeout(() => {
            throttledBefore = pids.map((pid) => caps.get(pid)?.throttled());
            stopSampler = samplePgWaits(pgName);
            scaleCpu(pids, pgName).then(ok, fail);
          }, warmupMs),
        );
        before.catch(() => undefined); // awaited (and thrown) below
        const result = await verifyAcross({
          origins,
          lanes: use,
          supply,
          concurrency,
          warmupMs,
          seconds,
        });
        result.pgWaits = stopSampler === null ? [] : await stopSampler();
        result.cpu = scaleCpuBetween(await before, await scaleCpu(pids, pgName), result.count);
        // Over the whole sub-phase, warm-up included: checkpoints another process had signed first.
        const countersAfter = await Promise.all(origins.map(scrapeCounters));
        const grew = (name) => countersAfter.map((after, i) => after[name] - countersBefore[i][name]);
        result.lostCheckpoints = grew('lostCheckpoints').reduce((x, y) => x + y, 0);
        // Each process's collector pauses over the whole sub-phase, per verification it served. Wall
        // time: a pause stretches while the cap holds the process, so compare processes, not CPU.
        result.gcUsPerOp = grew('gcSeconds').map((gc, i) => (gc * 1e6) / result.perOriginSucceeded[i]);
        // Each process's mean settle batch (verified settles per statement) over the sub-phase.
        const batches = grew('settleBatches');
        result.settleBatchMean = grew('settleMembers').map((m, i) => m / Math.max(1, batches[i]));
        // The share of CFS periods in which each capped server used up its quota: near 1, CPU-bound.
        result.throttledShare = pids.flatMap((pid, i) => {
          const now = caps.get(pid)?.throttled();
          if (now === undefined) return [];
          const periods = now.periods - throttledBefore[i].periods;
          return [periods > 0 ? (now.throttled - throttledBefore[i].throttled) / periods : 0];
        });
        round[`${name}${processes}`] = result;
        for (const second of servers.slice(1)) {
          uncap(second.pid);
          await stopChild(second);
        }
      }
    }
    rounds.push(round);
  }
  uncap(server.pid);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    cpuQuota: cores,
    pinnedTo: pinTo,
    rounds,
    oneTenantGain: median(rounds.map((x) => x.oneTenant2.opsPerS / x.oneTenant1.opsPerS)),
    manyTenantsGain: median(rounds.map((x) => x.manyTenants2.opsPerS / x.manyTenants1.opsPerS)),
  };
}

/**
 * CPU seconds of each server process and of the database's PostgreSQL backends, and the state of
 * the background work (backgroundState).
 */
async function scaleCpu(serverPids, database) {
  return {
    at: performance.now(),
    monoUs: Number(process.hrtime.bigint() / 1000n),
    servers: serverPids.map((pid) => procCpuS(pid)),
    mainThreads: serverPids.map((pid) => procCpuS(pid, pid)),
    switches: serverPids.map((pid) => contextSwitches(pid)),
    postgres: await postgresCpuS(database),
    background: await backgroundState(database),
  };
}

/**
 * The background work done and still waiting: receipt-log checkpoints signed so far, outbox events
 * not yet fanned out, and receipts not yet integrated into their tenant's log.
 */
async function backgroundState(database) {
  const client = new pg.Client({
    connectionString: `${args['pg-url']}/${database}`,
    connectionTimeoutMillis: 5000,
  });
  await client.connect();
  try {
    const { rows } = await client.query(
      `select (select count(*)::int from receipt_log_checkpoints) as checkpoints,
              (select count(*)::int from outbox_events where fanned_out_at is null) as unfanned,
              (select coalesce(sum(tc.value - coalesce(s.tree_size, 0)), 0)::int
                 from tenant_counters tc left join receipt_log_state s on s.tenant_id = tc.tenant_id
                where tc.name = 'receipts') as unlogged`,
    );
    return rows[0];
  } finally {
    await client.end();
  }
}

/** Cores busy over a scale sub-phase's recorded window, and CPU µs per verification. */
function scaleCpuBetween(a, b, count) {
  const wall = (b.at - a.at) / 1000;
  let postgres = 0;
  for (const [pid, end] of b.postgres) postgres += end - (a.postgres.get(pid) ?? 0);
  const servers = b.servers.map((s, i) => s - a.servers[i]);
  return {
    serverCores: servers.map((s) => s / wall),
    postgresCores: postgres / wall,
    checkpointsPerS: (b.background.checkpoints - a.background.checkpoints) / wall,
    // Backlog at the window's start → end: outbox events not fanned out, receipts not in the log.
    backlog: {
      unfanned: [a.background.unfanned, b.background.unfanned],
      unlogged: [a.background.unlogged, b.background.unlogged],
    },
    serverCpuUsPerOp: (servers.reduce((x, y) => x + y, 0) * 1e6) / count,
    eventLoopCpuUsPerOp: (b.mainThreads.reduce((x, y, i) => x + y - a.mainThreads[i], 0) * 1e6) / count,
    // The main threads' context switches per verification: voluntary (it blocked) and involuntary.
    switchesPerOp: [0, 1].map((k) => b.switches.reduce((x, y, i) => x + y[k] - a.switches[i][k], 0) / count),
    postgresCpuUsPerOp: (postgres * 1e6) / count,
    fromUs: a.monoUs,
    toUs: b.monoUs,
  };
}

/**
 * Counters of one server's /metrics, each summed over its label values:
 * - lostCheckpoints: presence_receipt_log_checkpoints_total{outcome="lost"}, checkpoints it
 *   computed and signed in vain because another process had integrated the same receipts first;
 * - gcSeconds: nodejs_gc_duration_seconds_sum, its collector's pauses, every kind;
 * - settleBatches, settleMembers: presence_pg_settle_batch_members_count and _sum, its PostgreSQL
 *   settle statements and the verified settles they carried.
 */
async function scrapeCounters(origin) {
  const response = await fetch(`${origin}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  if (!response.ok) throw new Error(`GET ${origin}/metrics: ${response.status}`);
  const text = await response.text();
  const sum = (pattern) => [...text.matchAll(pattern)].reduce((x, m) => x + Number(m[1]), 0);
  return {
    lostCheckpoints: sum(/^presence_receipt_log_checkpoints_total\{outcome="lost"\} (\S+)$/gm),
    gcSeconds: sum(/^nodejs_gc_duration_seconds_sum\{[^}]*\} (\S+)$/gm),
    settleBatches: sum(/^presence_pg_settle_batch_members_count (\S+)$/gm),
    settleMembers: sum(/^presence_pg_settle_batch_members_sum (\S+)$/gm),
  };
}

/** Two processes: each one's server CPU µs per verification it served, e.g. " = 900 + 1,100". */
function perProcess(cpu, result) {
  if (result.perOrigin.length < 2) return '';
  return ` = ${cpu.serverCores.map((cores, i) => f0((cores * 1e6) / result.perOrigin[i])).join(' + ')}`;
}

/** A tenant made with the CLI (asynchronously) and two enrolled authenticators as lanes. */
async function enrolTenant(env, origin, name) {
  const out = await new Promise((ok, fail) => {
    const child = spawn(
      process.execPath,
      [CLI, 'tenant', 'create', '--name', name, '--rp-id', RP_ID, '--origin', ORIGIN, '--json'],
      { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (text += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (text += d));
    // 'close', not 'exit': the output may still be in the pipe when the process exits.
    child.on('close', (code) => (code === 0 ? ok(text) : fail(new Error(`tenant create: ${text}`))));
  });
  const { apiKey } = JSON.parse(out.trim().split('\n').pop());
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const lanes = [];
  for (let i = 0; i < 2; i++) {
    const subject = `${name}-user-${i}`;
    const options = await postJson(`${origin}/v1/presence/credentials/options`, headers, { subject }, 200);
    const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
    const credential = authenticator.register(options.publicKey.challenge);
    await postJson(
      `${origin}/v1/presence/credentials`,
      headers,
      { registrationId: options.registrationId, credential },
      201,
    );
    lanes.push({ headers, subject, authenticator });
  }
  return lanes;
}

async function postJson(url, headers, body, expected) {
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`POST ${url}: ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

async function createPgDatabase({ synchronousCommit }) {
  const database = await createBenchDatabase(args['pg-url'], { synchronousCommit });
  cleanups.push(database.drop);
  return database;
}

// ---------------------------------------------------------------- report
const f0 = (x) => Math.round(x).toLocaleString('en-US');
const f1 = (x) => x.toFixed(1);
const f2 = (x) => x.toFixed(2);
const lat = (r) => `${f2(r.p50)} / ${f2(r.p99)}`;

/** Other processes on this shared machine took CPU during a phase: the figures drift; re-run. */
function disturbed(r) {
  const other = Math.max(
    r.creations.cpu.otherCores,
    r.verifications.cpu.otherCores,
    r.ceiling.cpu.otherCores,
  );
  return other > 0.2 ? ` [DISTURBED: other processes used up to ${f2(other)} cores; re-run when idle]` : '';
}

function printResults(micro, durability, results) {
  console.log('\n== micro-benchmark (in process, µs per operation)');
  console.log(
    `raw ECDSA P-256 verify, cached KeyObject: ${f1(micro.rawVerifyUs)} | @simplewebauthn/server verifyAuthenticationResponse: ${f1(micro.libraryUs)} | ` +
      `presence verifyAssertion (PublicKeyCache hit): ${f1(micro.domainCachedUs)} | verifyAssertion (cold cache): ${f1(micro.domainUncachedUs)} | ` +
      `importCoseKey: ${f1(micro.keyImportUs)} | Ed25519 receipt sign: ${f1(micro.receiptSignUs)}`,
  );
  console.log(
    `durable commit on ${tmpdir()}: fdatasync ${f1(durability.fdatasyncUs)} | SQLite WAL commit synchronous=FULL ${f1(durability.sqliteFullCommitUs)} | synchronous=NORMAL ${f1(durability.sqliteNormalCommitUs)}`,
  );
  console.log(
    `\n== HTTP, ${concurrency} connections, ${seconds} s per phase after ${warmupMs / 1000} s warm-up (ops/s, latency p50 / p99 ms)`,
  );
  console.log(
    'db              | creations/s | p50 / p99     | verifications/s | p50 / p99     | ceiling/s | p50 / p99   | verify ÷ ceiling',
  );
  const targetNote = (db, ratio) => {
    const target = TARGETS[db];
    if (target === undefined) return ' (not durable: no target)';
    const pct = `${Math.round(target * 100)} %`;
    return ratio >= target ? ` (target ≥ ${pct} met)` : ` (BELOW the ${pct} target)`;
  };
  for (const r of results) {
    const ratio = r.verifications.opsPerS / r.ceiling.opsPerS;
    console.log(
      `${r.db.padEnd(15)} | ${f0(r.creations.opsPerS).padStart(11)} | ${lat(r.creations).padEnd(13)} | ${f0(r.verifications.opsPerS).padStart(15)} | ` +
        `${lat(r.verifications).padEnd(13)} | ${f0(r.ceiling.opsPerS).padStart(9)} | ${lat(r.ceiling).padEnd(11)} | ` +
        `${(100 * ratio).toFixed(1)} %${targetNote(r.db, ratio)}` +
        disturbed(r),
    );
  }
  console.log(
    '\n== CPU during each recorded window (cores busy; server and PostgreSQL CPU µs per operation)',
  );
  for (const r of results) {
    for (const [name, p] of [
      ['creations', r.creations],
      ['verifications', r.verifications],
      ['ceiling', r.ceiling],
    ]) {
      const c = p.cpu;
      console.log(
        `${r.db.padEnd(15)} ${name.padEnd(13)} server ${f2(c.serverCores)}  client ${f2(c.clientCores)}  postgres ${f2(c.postgresCores)}  other ${f2(c.otherCores)}  machine ${f2(c.machineBusyCores)}/${cpus().length}` +
          `  | server ${f0(c.serverCpuUsPerOp)} µs/op (event loop ${f0(c.serverMainCpuUsPerOp)}, other threads ${f0(c.serverCpuUsPerOp - c.serverMainCpuUsPerOp)})  postgres ${f0(c.postgresCpuUsPerOp)} µs/op  (n=${p.count}${p.endedEarly ? ', ended early: supply exhausted' : ''})` +
          (p.parts ? `  before ${f0(p.parts[0].opsPerS)}/s, after ${f0(p.parts[1].opsPerS)}/s` : ''),
      );
      if (p.pgWaits !== null && name !== 'ceiling') {
        const waits = p.pgWaits.slice(0, 6).map((w) => `${w.wait} ${f1(w.backends)}`);
        console.log(`${''.padEnd(29)} PostgreSQL backends (average): ${waits.join(' | ')}`);
      }
    }
  }
  console.log(
    `(verify request body ${results[0]?.bodyBytes ?? 0} bytes; ceiling uses the same body and headers)`,
  );
  console.log(`\n== light load: verifications at ${lightConcurrency} connections (ops/s, p50 / p99 ms)`);
  for (const r of results) {
    console.log(
      `${r.db.padEnd(15)} ${f0(r.light.opsPerS).padStart(7)}/s  ${lat(r.light)}  (n=${r.light.count})`,
    );
  }
  for (const r of results) {
    if (!r.scale) continue;
    const capped =
      (r.scale.cpuQuota === null ? '' : `, each server capped at ${r.scale.cpuQuota} cores`) +
      (r.scale.pinnedTo.length === 0 ? '' : `, the servers pinned to CPUs ${r.scale.pinnedTo.join(' and ')}`);
    console.log(
      `\n== ${r.db}: one vs two server processes, ${concurrency} connections${capped} (ops/s, p50 / p99 ms; cores busy; CPU µs per verification)`,
    );
    r.scale.rounds.forEach((x, i) => {
      for (const key of ['oneTenant1', 'oneTenant2', 'manyTenants1', 'manyTenants2']) {
        const c = x[key].cpu;
        const throttled =
          x[key].throttledShare.length === 0
            ? ''
            : `  throttled ${x[key].throttledShare.map((t) => `${Math.round(100 * t)} %`).join(' + ')} of periods`;
        console.log(
          `round ${i + 1} ${key.padEnd(13)} ${f0(x[key].opsPerS).padStart(7)}/s (${x[key].perOrigin.map(f0).join(' + ')})  ${lat(x[key]).padEnd(13)}` +
            `  server ${c.serverCores.map(f2).join(' + ')}  postgres ${f2(c.postgresCores)}` +
            `  | server ${f0(c.serverCpuUsPerOp)} µs${perProcess(c, x[key])} (event loop ${f0(c.eventLoopCpuUsPerOp)}; its switches ${f2(c.switchesPerOp[0])} waiting + ${f2(c.switchesPerOp[1])} preempted)  postgres ${f0(c.postgresCpuUsPerOp)} µs  GC pauses ${x[key].gcUsPerOp.map(f0).join(' + ')} µs (wall)  settle batch ${x[key].settleBatchMean.map(f1).join(' + ')}  checkpoints ${f1(c.checkpointsPerS)}/s (${x[key].lostCheckpoints} lost)${throttled}` +
            `  backlog: unfanned ${c.backlog.unfanned.join(' → ')}, unlogged ${c.backlog.unlogged.join(' → ')}`,
        );
        const waits = x[key].pgWaits.slice(0, 5).map((w) => `${w.wait} ${f1(w.backends)}`);
        console.log(`${''.padEnd(22)} PostgreSQL backends (average): ${waits.join(' | ')}`);
      }
    });
    console.log(
      `two processes ÷ one (median of ${r.scale.rounds.length} round(s)): one tenant ${f2(r.scale.oneTenantGain)}×, ` +
        `${concurrency} tenants ${f2(r.scale.manyTenantsGain)}× (targets ≥ 1.6× and ≥ 1.8×` +
        `${r.scale.cpuQuota === null ? '' : `, with each process capped at ${r.scale.cpuQuota} cores`})`,
    );
  }
  for (const r of results) {
    if (!r.profile) continue;
    console.log(`\n== server CPU profile, ${r.db}, verification window: ${r.profile.file}`);
    printProfile(
      summariseProfile(r.profile.file, { fromUs: r.profile.verify.fromUs, toUs: r.profile.verify.toUs }),
    );
    const windowOf = (w) => `node bench/verify/profile-summary.mjs ${r.profile.file} ${w.fromUs} ${w.toUs}`;
    console.log(`  (creation window: ${windowOf(r.profile.create)})`);
    console.log(`  (verification window, as above: ${windowOf(r.profile.verify)})`);
  }
}

try {
  console.log(
    `presence bench/verify: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}), databases: ${databases.join(', ')}`,
  );
  const micro = await signatureMicro({ ms: microMs });
  const durability = durabilityMicro({ ms: microMs });
  const results = [];
  for (const db of databases) {
    console.log(
      `… ${db}: ceiling ${seconds / 2} s, creations ${seconds} s, verifications ${seconds} s, ceiling ${seconds / 2} s`,
    );
    results.push(await benchDatabase(db));
    await cleanupAll();
    cleaning = null;
  }
  printResults(micro, durability, results);
  if (args.json) {
    writeFileSync(
      args.json,
      JSON.stringify(
        { node: process.version, cpus: cpus().length, concurrency, seconds, micro, durability, results },
        null,
        2,
      ),
    );
  }
} catch (error) {
  if (!interrupted) console.error(`bench/verify failed: ${error?.stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanupAll();
}
