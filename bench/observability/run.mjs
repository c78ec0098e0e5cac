// Run: npm run build && node bench/observability/run.mjs [--verifies 400] [--scrapes 200]
//
// What observability costs, in process (app.inject, SQLite in a temp dir):
//   1. verify latency with tracing OFF, then (in a child process, since the tracer provider is
//      process-global) with tracing ON, exporting over OTLP/HTTP to a local sink that discards;
//   2. one Prometheus scrape: the registry rendered after the verify phase (every route's
//      histogram populated), and the store's backlog read (cached 10 s in production).
// Figures go to stdout; docs/metrics.md quotes them. Never a timed test.
/* global process, console, performance, Buffer, URL */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SoftAuthenticator } from '../verify/soft-authenticator.mjs';

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const DIST = join(ROOT, 'packages/server/dist');
const { values: args } = parseArgs({
  options: {
    verifies: { type: 'string', default: '400' },
    scrapes: { type: 'string', default: '200' },
    child: { type: 'string' },
  },
});
const verifies = Number(args.verifies);

if (args.child === undefined) {
  const off = JSON.parse(run('off'));
  const on = JSON.parse(run('on'));
  const fmt = (r) =>
    `mean ${r.meanMs.toFixed(3)} ms, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(3)} ms`;
  console.log(`verify over app.inject, ${verifies} verifications after 50 warm-up:`);
  console.log(`  tracing off: ${fmt(off.verify)}`);
  console.log(`  tracing on:  ${fmt(on.verify)} (${on.spans} spans exported)`);
  console.log(
    `scrape (registry rendered, ${off.scrape.series} sample lines): mean ${off.scrape.meanMs.toFixed(3)} ms`,
  );
  console.log(`backlog read (4 bounded queries, SQLite): mean ${off.backlog.meanMs.toFixed(3)} ms`);
} else {
  console.log(JSON.stringify(await measure(args.child === 'on')));
  process.exit(0);
}

function run(mode) {
  const r = spawnSync(
    process.execPath,
    [fileURLToPath(import.meta.url), '--child', mode, '--verifies', args.verifies, '--scrapes', args.scrapes],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`${mode} run failed: ${r.stderr}`);
  return r.stdout.trim().split('\n').at(-1);
}

async function measure(tracing) {
  let spans = 0;
  const sink = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans += ss.spans.length;
      res.end('{}');
    });
  });
  await new Promise((r) => sink.listen(0, '127.0.0.1', r));
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-bench-obs-'));
  const { loadConfig } = await import(join(DIST, 'config/load-config.js'));
  const { inProcessServiceEnv } = await import(join(DIST, 'config/in-process-env.js'));
  const { compose } = await import(join(DIST, 'compose.js'));
  const { createTenant } = await import(join(DIST, 'domain/tenants/create-tenant.js'));
  const config = loadConfig(
    inProcessServiceEnv(dataDir, {
      ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.address().port}` } : {}),
    }),
  );
  const composed = await compose(config, false);
  const { apiKey } = await createTenant(composed.deps, {
    name: 'bench',
    rpId: 'app.example',
    origins: ['https://app.example'],
  });
  const call = async (url, payload) => {
    const res = await composed.app.inject({
      method: 'POST',
      url,
      payload,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    return res.json();
  };
  const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
  const options = await call('/v1/presence/credentials/options', { subject: 'bench' });
  await call('/v1/presence/credentials', {
    registrationId: options.registrationId,
    credential: authenticator.register(options.publicKey.challenge),
  });
  const times = [];
  for (let i = 0; i < verifies + 50; i++) {
    const c = await call('/v1/presence/challenge', {
      actionHashHex: randomBytes(32).toString('hex'),
      subject: 'bench',
    });
    const assertion = authenticator.assert(c.publicKey.challenge);
    const started = performance.now();
    const v = await call('/v1/presence/verify', { challengeId: c.challengeId, assertion });
    if (i >= 50) times.push(performance.now() - started);
    if (v.decision !== 'PRESENCE_VERIFIED') throw new Error(v.decision);
  }
  times.sort((a, b) => a - b);
  const verify = {
    meanMs: times.reduce((a, b) => a + b, 0) / times.length,
    p50Ms: times[Math.floor(times.length / 2)],
    p99Ms: times[Math.floor(times.length * 0.99)],
  };
  const scrapes = Number(args.scrapes);
  let text = '';
  let t = performance.now();
  for (let i = 0; i < scrapes; i++) text = await composed.metrics.registry.metrics();
  const scrape = {
    meanMs: (performance.now() - t) / scrapes,
    series: text.split('\n').filter((l) => l && !l.startsWith('#')).length,
  };
  t = performance.now();
  for (let i = 0; i < scrapes; i++) await composed.store.webhooks.backlog.measure(100_000);
  const backlog = { meanMs: (performance.now() - t) / scrapes };
  await composed.close();
  sink.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { verify, scrape, backlog, spans };
}
