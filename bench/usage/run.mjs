// Run: npx tsc -b packages/server && node bench/usage/run.mjs [--db postgres|sqlite|both] [--events 10000000]
//        [--requests 300] [--pg-url postgres://postgres@127.0.0.1:5432] [--json <file>]
//
// GET /v1/billing/usage latency for ONE tenant holding `events` usage events spread evenly over a
// year, over HTTP against the real server process (packages/server/dist/main.js), next to two
// ceilings measured in the same run on the same server and client:
//   constant   GET /healthz: no auth, no database, a constant JSON body (the HTTP floor)
//   point      GET /v1/billing/usage for one hour: auth + one indexed point read + the same code path
// How the data is made: `presence migrate` and `presence tenant create`, then the events are
// bulk-inserted in SQL, and their hour/day/month rollups are built by GROUP BY over them (exactly the
// rows the per-event upsert of storage/tables/usage-rollups.ts produces; the 0004 migration backfills
// the same way; the column lists are that module's and usage-events.ts's). 1,000 more units then go through the real write path (POST /v1/presence/challenge, which
// upserts the rollups in its transaction) and are checked through the endpoint. For contrast, the
// bench also times, in SQL, the rollup query itself and the full scan of the events that rollups avoid.
// Sequential requests (one keep-alive connection): latency, not throughput. Cleans up even on failure.
/* global URL, process, console, setTimeout, fetch, performance */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from '../../packages/server/dist/storage/sqlite-driver.js';
import pg from 'pg';
import { Pool } from 'undici';
import { freePort } from '../free-port.mjs';
import { createBenchDatabase } from '../pg-database.mjs';
import { inColumnOrder } from '../../packages/server/dist/storage/tables/sql-text.js';
import { USAGE_EVENT_COLUMNS } from '../../packages/server/dist/storage/tables/usage-events.js';
import { USAGE_ROLLUP_COLUMNS } from '../../packages/server/dist/storage/tables/usage-rollups.js';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SERVER = join(ROOT, 'packages/server/dist/main.js');
const CLI = join(ROOT, 'packages/server/dist/cli/main.js');
const TARGET_MS = 50;
const YEAR_START = Date.UTC(2025, 0, 1);
const YEAR_END = Date.UTC(2026, 0, 1);
const METERS = [
  'challenges.created',
  'presence.verified',
  'presence.denied',
  'receipts.exported',
  'webhooks.delivered',
];
// Per 10 events: 4 challenges, 3 verified, 1 denied, 1 export, 1 webhook delivery.
const METER_OF = [0, 0, 0, 0, 1, 1, 1, 2, 3, 4];
const PLAN = { name: 'bench', currency: 'EUR', currencyExponent: 2, monthlyChallengeQuota: null, meters: {} };

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    events: { type: 'string', default: '10000000' },
    requests: { type: 'string', default: '300' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432' },
    json: { type: 'string' },
  },
});
const EVENTS = Number(args.events);
const REQUESTS = Number(args.requests);
const databases = args.db === 'both' ? ['postgres', 'sqlite'] : [args.db];
if (!(Number.isInteger(EVENTS) && EVENTS >= 1000 && EVENTS <= 100_000_000))
  throw new Error('--events: 1000..1e8');
if (!(Number.isInteger(REQUESTS) && REQUESTS >= 10 && REQUESTS <= 100_000))
  throw new Error('--requests: 10..1e5');
if (!databases.every((d) => d === 'postgres' || d === 'sqlite'))
  throw new Error('--db: postgres, sqlite or both');

const iso = (ms) => new Date(ms).toISOString();
const CASES = [
  {
    name: 'hour × 1 month',
    granularity: 'hour',
    from: Date.UTC(2025, 6, 1),
    to: Date.UTC(2025, 7, 1),
    buckets: 744,
  },
  {
    name: 'day × 1 month',
    granularity: 'day',
    from: Date.UTC(2025, 6, 1),
    to: Date.UTC(2025, 7, 1),
    buckets: 31,
  },
  {
    name: 'month × 1 month',
    granularity: 'month',
    from: Date.UTC(2025, 6, 1),
    to: Date.UTC(2025, 7, 1),
    buckets: 1,
  },
  { name: 'day × 1 year', granularity: 'day', from: YEAR_START, to: YEAR_END, buckets: 365 },
  { name: 'month × 1 year', granularity: 'month', from: YEAR_START, to: YEAR_END, buckets: 12 },
];
const usagePath = (c) => `/v1/billing/usage?from=${iso(c.from)}&to=${iso(c.to)}&granularity=${c.granularity}`;

// ---------------------------------------------------------------- cleanup of everything we start
const cleanups = [];
async function cleanupAll() {
  for (const fn of cleanups.splice(0).reverse())
    await fn().catch((e) => console.error(`cleanup: ${e.message}`));
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => void cleanupAll().finally(() => process.exit(130)));

function startServer(env) {
  const child = spawn(process.execPath, [SERVER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  const keep = (chunk) => (tail = (tail + chunk).slice(-4000));
  child.stdout.setEncoding('utf8').on('data', keep);
  child.stderr.setEncoding('utf8').on('data', keep);
  const exited = new Promise((done) => child.on('exit', done));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return { child, tail: () => tail };
}

async function waitReady(server, url) {
  for (let i = 0; i < 300; i++) {
    if (server.child.exitCode !== null) throw new Error(`server exited:\n${server.tail()}`);
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server not ready:\n${server.tail()}`);
}

function cli(env, ...cliArgs) {
  const r = spawnSync(process.execPath, [CLI, ...cliArgs], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`presence ${cliArgs.join(' ')} failed: ${r.stderr || r.error}`);
  return r.stdout;
}

/** `presence tenant create` for the bench's relying party: the new tenant's id and API key. */
function createTenant(env, name) {
  const relyingParty = ['--rp-id', 'app.example', '--origin', 'https://app.example'];
  const out = cli(env, 'tenant', 'create', '--name', name, ...relyingParty, '--json');
  return JSON.parse(out.trim().split('\n').pop());
}

// ---------------------------------------------------------------- seeding, per dialect
const seedSql = {
  /** occurred_at = start + ⌊i × span / n⌋; meter by i mod 10; everything for one tenant. */
  postgres: {
    events: `INSERT INTO usage_events (${USAGE_EVENT_COLUMNS})
      SELECT ${inColumnOrder(USAGE_EVENT_COLUMNS, {
        id: `'use_bench' || lpad(i::text, 12, '0')`,
        tenant_id: '$1',
        meter: `(ARRAY[${METER_OF.map((m) => `'${METERS[m]}'`).join(',')}])[1 + i % 10]`,
        quantity: '1',
        occurred_at: '$2::bigint + (i::numeric * $3 / $4)::bigint',
        source_id: `'bench-' || i`,
      })}
      FROM generate_series($5::bigint, $6::bigint - 1) AS i`,
    month: `(extract(epoch FROM date_trunc('month', to_timestamp(occurred_at / 1000.0) AT TIME ZONE 'UTC')) * 1000)::bigint`,
  },
  sqlite: {
    events: `WITH RECURSIVE s(i) AS (SELECT CAST(?5 AS INTEGER) UNION ALL SELECT i + 1 FROM s WHERE i + 1 < ?6)
      INSERT INTO usage_events (${USAGE_EVENT_COLUMNS})
      SELECT ${inColumnOrder(USAGE_EVENT_COLUMNS, {
        id: `'use_bench' || printf('%012d', i)`,
        tenant_id: '?1',
        meter: `CASE i % 10 ${METER_OF.map((m, k) => `WHEN ${k} THEN '${METERS[m]}'`).join(' ')} END`,
        quantity: '1',
        occurred_at: 'CAST(?2 AS INTEGER) + (i * CAST(?3 AS INTEGER)) / CAST(?4 AS INTEGER)',
        source_id: `'bench-' || i`,
      })} FROM s`,
    month: `CAST(strftime('%s', occurred_at / 1000, 'unixepoch', 'start of month') AS INTEGER) * 1000`,
  },
};
const rollupSql = (dialect, granularity, p) => {
  const start =
    { hour: '(occurred_at / 3600000) * 3600000', day: '(occurred_at / 86400000) * 86400000' }[granularity] ??
    seedSql[dialect].month;
  const values = inColumnOrder(USAGE_ROLLUP_COLUMNS, {
    tenant_id: 'tenant_id',
    granularity: `'${granularity}'`,
    bucket_start: start,
    meter: 'meter',
    quantity: 'sum(quantity)',
    sealed: '0',
  });
  return `INSERT INTO usage_rollups (${USAGE_ROLLUP_COLUMNS})
    SELECT ${values} FROM usage_events WHERE tenant_id = ${p} GROUP BY 1, 3, 4`;
};

/** A uniform SQL runner: PostgreSQL through pg, SQLite through better-sqlite3 on the same file. */
async function openSql(dialect, target) {
  if (dialect === 'postgres') {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    return {
      run: async (text, params = []) => (await client.query(text, params)).rows,
      close: () => client.end(),
    };
  }
  const db = new Database(target);
  db.pragma('journal_mode = WAL');
  return {
    // better-sqlite3 binds named parameters: ?N becomes @pN.
    run: async (text, params = []) => {
      const statement = db.prepare(text.replace(/\?(\d+)/g, '@p$1'));
      const named = Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]));
      return statement.reader ? statement.all(named) : (statement.run(named), []);
    },
    close: async () => db.close(),
  };
}

async function seed(sql, dialect, tenantId) {
  const p = (n) => (dialect === 'postgres' ? `$${n}` : `?${n}`);
  const span = YEAR_END - YEAR_START;
  const batch = 1_000_000;
  const t0 = performance.now();
  for (let from = 0; from < EVENTS; from += batch) {
    const to = Math.min(EVENTS, from + batch);
    await sql.run('BEGIN');
    await sql.run(seedSql[dialect].events, [tenantId, YEAR_START, span, EVENTS, from, to]);
    await sql.run('COMMIT');
    process.stdout.write(`\r  ${dialect}: ${to.toLocaleString('en-US')} events inserted`);
  }
  process.stdout.write(` (${((performance.now() - t0) / 1000).toFixed(0)} s)\n`);
  const t1 = performance.now();
  for (const g of ['hour', 'day', 'month']) await sql.run(rollupSql(dialect, g, p(1)), [tenantId]);
  await sql.run(dialect === 'postgres' ? 'VACUUM ANALYZE' : 'ANALYZE');
  const [{ n }] = await sql.run(`SELECT count(*) AS n FROM usage_rollups WHERE tenant_id = ${p(1)}`, [
    tenantId,
  ]);
  console.log(
    `  ${dialect}: ${Number(n).toLocaleString('en-US')} rollup rows built (${((performance.now() - t1) / 1000).toFixed(0)} s)`,
  );
}

// ---------------------------------------------------------------- measuring
const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function measure(pool, path, headers, check) {
  const times = [];
  let bytes = 0;
  for (let i = 0; i < REQUESTS + 30; i++) {
    const start = performance.now();
    const res = await pool.request({ method: 'GET', path, headers });
    const text = await res.body.text();
    const ms = performance.now() - start;
    if (!check(res.statusCode, text))
      throw new Error(`GET ${path} → ${res.statusCode} ${text.slice(0, 300)}`);
    if (i >= 30) times.push(ms); // the first 30 warm up the JIT, the pools and the caches
    bytes = text.length;
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.at(-1), bytes };
}

async function timeSql(sql, text, params, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await sql.run(text, params);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return percentile(times, 0.5);
}

/** Challenge creations per second for `seconds`, one keep-alive connection per (tenant, worker). */
async function createRate(origin, apiKeys, perTenant, seconds) {
  const pools = apiKeys.map(() => new Pool(origin, { connections: perTenant, pipelining: 1 }));
  let count = 0;
  const until = performance.now() + seconds * 1000;
  const worker = async (pool, apiKey) => {
    while (performance.now() < until) {
      const body = JSON.stringify({ actionHashHex: randomBytes(32).toString('hex') });
      const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
      const res = await pool.request({ method: 'POST', path: '/v1/presence/challenge', headers, body });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`challenge: ${res.statusCode}`);
      count++;
    }
  };
  const t0 = performance.now();
  await Promise.all(
    apiKeys.flatMap((key, i) => Array.from({ length: perTenant }, () => worker(pools[i], key))),
  );
  const rate = count / ((performance.now() - t0) / 1000);
  await Promise.all(pools.map((p) => p.close()));
  return rate;
}

async function benchDatabase(dialect) {
  const dataDir = mkdtempSync(join(tmpdir(), `presence-bench-usage-${dialect}-`));
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
  const planFile = join(dataDir, 'plan.json');
  writeFileSync(planFile, JSON.stringify(PLAN));
  const port = await freePort();
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    PRESENCE_DATA_DIR: dataDir,
    PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
    PRESENCE_DEV_TENANT: 'false',
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
    PRESENCE_BILLING_DEFAULT_PLAN_FILE: planFile,
    LOG_LEVEL: 'warn',
  };
  delete env.DATABASE_URL;
  let target = join(dataDir, 'presence.sqlite');
  if (dialect === 'postgres') {
    const database = await createBenchDatabase(args['pg-url'], { prefix: 'presence_bench_usage' });
    cleanups.push(database.drop);
    target = env.DATABASE_URL = database.url;
  }
  cli(env, 'migrate');
  const { tenantId, apiKey } = createTenant(env, 'bench');
  const sql = await openSql(dialect, target);
  cleanups.push(() => sql.close());
  await seed(sql, dialect, tenantId);

  const server = startServer(env);
  const origin = `http://127.0.0.1:${port}`;
  await waitReady(server, `${origin}/readyz`);
  const pool = new Pool(origin, { connections: 1, pipelining: 1, keepAliveTimeout: 60_000 });
  cleanups.push(() => pool.close());
  const headers = { authorization: `Bearer ${apiKey}` };

  // The real write path on top of the big table: 1,000 challenges, each upserting its rollups in its transaction.
  for (let i = 0; i < 1000; i++) {
    const body = JSON.stringify({ actionHashHex: randomBytes(32).toString('hex') });
    const res = await pool.request({
      method: 'POST',
      path: '/v1/presence/challenge',
      headers: { ...headers, 'content-type': 'application/json' },
      body,
    });
    if (res.statusCode !== 201) throw new Error(`challenge: ${res.statusCode} ${await res.body.text()}`);
    await res.body.dump();
  }
  const now = new Date();
  const month = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const live = await pool.request({
    method: 'GET',
    path: usagePath({
      granularity: 'month',
      from: month,
      to: Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
    }),
    headers,
  });
  const liveTotals = JSON.parse(await live.body.text()).totals;
  if (liveTotals['challenges.created'] !== 1000) throw new Error(`live usage: ${JSON.stringify(liveTotals)}`);
  const year = JSON.parse(
    await (await pool.request({ method: 'GET', path: usagePath(CASES[4]), headers })).body.text(),
  );
  const counted = Object.values(year.totals).reduce((a, b) => a + b, 0);
  if (counted !== EVENTS) throw new Error(`the year's usage is ${counted}, expected ${EVENTS}`);

  const ok = (status) => status === 200;
  const results = {
    constant: await measure(pool, '/healthz', {}, ok),
    point: await measure(
      pool,
      usagePath({ granularity: 'hour', from: Date.UTC(2025, 6, 1, 12), to: Date.UTC(2025, 6, 1, 13) }),
      headers,
      ok,
    ),
  };
  for (const c of CASES) {
    results[c.name] = await measure(
      pool,
      usagePath(c),
      headers,
      (status, text) => ok(status) && JSON.parse(text).series.length === c.buckets,
    );
  }
  const refused = await pool.request({
    method: 'GET',
    path: usagePath({ granularity: 'hour', from: YEAR_START, to: YEAR_END }),
    headers,
  });
  const refusedText = await refused.body.text();
  const p = (n) => (dialect === 'postgres' ? `$${n}` : `?${n}`);
  const rollupQuery = `SELECT bucket_start, meter, quantity FROM usage_rollups WHERE tenant_id = ${p(1)} AND granularity = ${p(2)} AND bucket_start >= ${p(3)} AND bucket_start < ${p(4)} ORDER BY bucket_start`;
  const sqlTimes = {
    'rollups, hour × 1 month': await timeSql(
      sql,
      rollupQuery,
      [tenantId, 'hour', CASES[0].from, CASES[0].to],
      50,
    ),
    'rollups, day × 1 year': await timeSql(sql, rollupQuery, [tenantId, 'day', YEAR_START, YEAR_END], 50),
    'full scan of the events, 1 year by meter': await timeSql(
      sql,
      `SELECT meter, sum(quantity) FROM usage_events WHERE tenant_id = ${p(1)} AND occurred_at >= ${p(2)} AND occurred_at < ${p(3)} GROUP BY meter`,
      [tenantId, YEAR_START, YEAR_END],
      3,
    ),
  };
  // The write path: every creation upserts its tenant's rollup rows, which stay locked until commit.
  const tenantKeys = Array.from({ length: 16 }, (_, i) => createTenant(env, `w${i}`).apiKey);
  const writes = {
    'one tenant, 16 connections': await createRate(origin, [apiKey], 16, 5),
    '16 tenants, 1 connection each': await createRate(origin, tenantKeys, 1, 5),
  };
  return {
    results,
    sqlTimes,
    writes,
    refused: `${refused.statusCode} ${JSON.parse(refusedText).errors?.[0]?.message ?? ''}`,
  };
}

function report(dialect, { results, sqlTimes, writes, refused }) {
  const f = (ms) => ms.toFixed(2).padStart(8);
  console.log(
    `\n${dialect}: GET /v1/billing/usage, ${EVENTS.toLocaleString('en-US')} events in one tenant, ${REQUESTS} sequential requests per row (ms)`,
  );
  console.log(
    `  ${'case'.padEnd(34)}${'p50'.padStart(8)}${'p99'.padStart(8)}${'max'.padStart(8)}   bytes   target`,
  );
  for (const [name, r] of Object.entries(results)) {
    const label =
      name === 'constant'
        ? 'ceiling: GET /healthz (constant)'
        : name === 'point'
          ? 'ceiling: usage, 1 hour (point)'
          : name;
    const target =
      name === 'constant' || name === 'point'
        ? ''
        : r.p99 < TARGET_MS
          ? `p99 < ${TARGET_MS} ✓`
          : `p99 ≥ ${TARGET_MS} ✗`;
    console.log(
      `  ${label.padEnd(34)}${f(r.p50)}${f(r.p99)}${f(r.max)}${String(r.bytes).padStart(8)}   ${target}`,
    );
  }
  console.log(`  hour × 1 year: ${refused} (beyond the documented 31-day limit)`);
  console.log('  SQL alone (bench process, median):');
  for (const [name, ms] of Object.entries(sqlTimes)) console.log(`    ${name.padEnd(44)}${f(ms)}`);
  console.log('  write path, POST /v1/presence/challenge for 5 s (creations/s):');
  for (const [name, rate] of Object.entries(writes))
    console.log(`    ${name.padEnd(44)}${rate.toFixed(0).padStart(8)}`);
}

const all = {};
try {
  for (const dialect of databases) {
    console.log(`seeding ${dialect} …`);
    all[dialect] = await benchDatabase(dialect);
    report(dialect, all[dialect]);
    await cleanupAll();
  }
  if (args.json)
    writeFileSync(args.json, JSON.stringify({ events: EVENTS, requests: REQUESTS, results: all }, null, 2));
} finally {
  await cleanupAll();
}
