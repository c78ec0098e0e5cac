// Run: npx tsc -b packages/server && node bench/webhooks/run.mjs [--n 3000] [--latency 200] [--db sqlite|postgres|both]
//
// Webhook delivery with the real worker loop (runJobs, 200 ms poll), a real store (SQLite file in
// TMPDIR or a fresh PostgreSQL schema) and a local node:http receiver on 127.0.0.1 that answers
// 200 at once. Printed beside a ceiling measured in the same run: raw undici POSTs of the same
// signed-size body to the same receiver at the same concurrency.
//   throughput  N outbox events committed at once, then delivered: deliveries/s from the first
//               attempt to the last, for 1 endpoint (8 in flight: the per-endpoint limit) and for
//               8 endpoints (64 in flight: the per-process limit)
//   latency     single events committed one by one while the worker idles: commit → first attempt
//               received (median, p90, p99); target median < 1 s
// Method and latest figures: docs/performance.md ("Webhooks").
/* global process, console, performance, setTimeout */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Pool } from 'undici';
import { composeWith, depsFromStore, systemClock } from '../../packages/server/dist/compose.js';
import { loadConfig } from '../../packages/server/dist/config/load-config.js';
import { inProcessServiceEnv } from '../../packages/server/dist/config/in-process-env.js';
import { recordEvent } from '../../packages/server/dist/domain/events/record-event.js';
import { createTenant } from '../../packages/server/dist/domain/tenants/create-tenant.js';
import { createWebhookEndpoint } from '../../packages/server/dist/domain/webhooks/manage-webhook-endpoints.js';
import { openTestStore, pgAvailable } from '../../packages/server/dist/storage/testing.js';
import { runJobs } from '../../packages/server/dist/worker/run-jobs.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '3000' },
    latency: { type: 'string', default: '200' },
    db: { type: 'string', default: 'both' },
  },
});
const N = Number(values.n);
const LATENCY_SAMPLES = Number(values.latency);
const PAYLOAD = {
  receiptId: 'rct_01JB8ZV3R5N7X2Q4W6Y8A0C2E4',
  challengeId: 'chl_01JB8ZV3R5N7X2Q4W6Y8A0C2E4',
  actionHashHex: 'ab'.repeat(32),
  subject: 'user-1',
  credentialRef: 'cred_01JB8ZV3R5N7X2Q4W6Y8A0C2E4',
  receiptHashHex: 'cd'.repeat(32),
  issuedAt: new Date().toISOString(),
};

/** The local receiver: notes when each delivery id first arrived. */
async function startReceiver() {
  const arrivals = new Map();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = req.headers['x-presence-delivery-id'];
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, arrivals, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** The ceiling: `count` raw POSTs of a same-size body through `concurrency` connections. */
async function ceiling(url, count, concurrency) {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 });
  const body = JSON.stringify({
    id: 'evt_x',
    type: 'receipt.created',
    createdAt: PAYLOAD.issuedAt,
    data: PAYLOAD,
  });
  const headers = { 'content-type': 'application/json', 'x-presence-signature': 'v1=' + 'a'.repeat(64) };
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const res = await pool.request({ method: 'POST', path: '/ceiling', headers, body });
        await res.body.text();
      }
    }),
  );
  const perSecond = Math.round(count / ((performance.now() - started) / 1000));
  await pool.close();
  return perSecond;
}

async function setup(dialect, receiverUrl) {
  const testStore = await openTestStore(dialect, { pgPoolSize: 10 });
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-bench-wh-'));
  const config = loadConfig(
    inProcessServiceEnv(dataDir, {
      PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
    }),
  );
  const deps = await depsFromStore(testStore.store, config.masterKey, systemClock, {
    allowNets: ['127.0.0.0/8'],
  });
  const composed = await composeWith(deps, config, false);
  const { tenant } = await createTenant(deps, {
    name: 'bench',
    rpId: 'app.example',
    origins: ['https://app.example'],
  });
  const endpoint = (path) =>
    createWebhookEndpoint(deps, tenant.id, { url: `${receiverUrl}${path}`, events: ['receipt.created'] });
  const jobs = runJobs(composed.jobs, false);
  const close = async () => {
    await jobs.stop();
    await composed.close();
    await testStore.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { deps, tenantId: tenant.id, endpoint, close };
}

async function waitFor(arrivals, count, timeoutMs) {
  const deadline = performance.now() + timeoutMs;
  while (arrivals.size < count) {
    if (performance.now() > deadline) throw new Error(`only ${arrivals.size} of ${count} delivered`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function throughput(dialect, endpoints) {
  const receiver = await startReceiver();
  const s = await setup(dialect, receiver.url);
  for (let e = 0; e < endpoints; e++) await s.endpoint(`/e${e}`);
  const events = Math.ceil(N / endpoints);
  await s.deps.store.transaction(async (tx) => {
    for (let i = 0; i < events; i++) await recordEvent(s.deps, tx, s.tenantId, 'receipt.created', PAYLOAD);
  });
  const total = events * endpoints;
  await waitFor(receiver.arrivals, total, 300_000);
  const times = [...receiver.arrivals.values()].sort((a, b) => a - b);
  const perSecond = Math.round((total - 1) / ((times.at(-1) - times[0]) / 1000));
  await s.close();
  const raw = await ceiling(receiver.url, Math.min(total, 5000), endpoints * 8);
  await receiver.close();
  return { perSecond, raw };
}

async function latency(dialect) {
  const receiver = await startReceiver();
  const s = await setup(dialect, receiver.url);
  await s.endpoint('/latency');
  const samples = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await new Promise((r) => setTimeout(r, Math.random() * 100));
    await s.deps.store.transaction((tx) => recordEvent(s.deps, tx, s.tenantId, 'receipt.created', PAYLOAD));
    const committed = performance.now();
    await waitFor(receiver.arrivals, i + 1, 10_000);
    samples.push([...receiver.arrivals.values()].at(-1) - committed);
  }
  await s.close();
  await receiver.close();
  samples.sort((a, b) => a - b);
  const pct = (p) => Math.round(samples[Math.min(samples.length - 1, Math.floor(samples.length * p))]);
  return { p50: pct(0.5), p90: pct(0.9), p99: pct(0.99), max: Math.round(samples.at(-1)) };
}

const dialects = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db];
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await pgAvailable())) continue;
  for (const endpoints of [1, 8]) {
    const t = await throughput(dialect, endpoints);
    console.log(
      `${dialect.padEnd(8)} throughput ${endpoints} endpoint(s), ${endpoints * 8} in flight: ` +
        `${t.perSecond} deliveries/s   ceiling (raw undici POSTs, same concurrency): ${t.raw}/s`,
    );
  }
  const l = await latency(dialect);
  console.log(
    `${dialect.padEnd(8)} commit → first attempt (${LATENCY_SAMPLES} events): median ${l.p50} ms, p90 ${l.p90} ms, p99 ${l.p99} ms, max ${l.max} ms`,
  );
}
process.exit(0);
