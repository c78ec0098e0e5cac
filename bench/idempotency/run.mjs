// Run: npx tsc -b packages/server && node bench/idempotency/run.mjs [--n 2000] [--concurrency 8] [--rounds 4] [--db sqlite|postgres|both]
//
// What an Idempotency-Key costs, next to a ceiling measured in the same run: the same requests
// without the header. In process (app.inject: no sockets, so the figures isolate the server's
// work), on a real database (SQLite file in TMPDIR, or a fresh PostgreSQL schema), durable commits.
// Each pair alternates over `rounds` so that load from elsewhere on the machine hits both alike.
//   challenge        POST /v1/presence/challenge                 (ceiling)
//   challenge+key    the same with a fresh Idempotency-Key each  (key inserted and response sealed
//                    in the challenge's transaction)
//   challenge replay every keyed request again, same key and body (lookup + unseal, no domain work)
//   verify           POST /v1/presence/verify, assertions signed before the phase (ceiling); one
//                    authenticator per worker, so signature counters arrive in order
//   verify+key       the same with a fresh Idempotency-Key each
// Method and latest figures: docs/performance.md ("Idempotency-Key").
/* global process, console, performance */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SoftAuthenticator } from '../verify/soft-authenticator.mjs';
import { composeWith, depsFromStore } from '../../packages/server/dist/compose.js';
import { loadConfig } from '../../packages/server/dist/config/load-config.js';
import { inProcessServiceEnv } from '../../packages/server/dist/config/in-process-env.js';
import {
  DEFAULT_BILLING_SETTINGS,
  FREE_PLAN,
} from '../../packages/server/dist/domain/billing/billing-settings.js';
import { createTenant } from '../../packages/server/dist/domain/tenants/create-tenant.js';
import { openTestStore, pgAvailable } from '../../packages/server/dist/storage/testing.js';

const RP_ID = 'app.example';
const ORIGIN = 'https://app.example';
const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '2000' },
    concurrency: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '4' },
    db: { type: 'string', default: 'both' },
  },
});
const WORKERS = Number(values.concurrency);
const ROUNDS = Number(values.rounds);
const PER_WORKER = Math.max(1, Math.floor(Number(values.n) / WORKERS / ROUNDS));

/** Accumulates one phase over several rounds: total time, latencies, failures. */
class Measure {
  constructor(name) {
    Object.assign(this, { name, ms: 0, latencies: [], failures: 0 });
  }
  /** Runs `request(worker, j)` for j < PER_WORKER in each of WORKERS concurrent workers. */
  async round(request) {
    const started = performance.now();
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        for (let j = 0; j < PER_WORKER; j++) {
          const t = performance.now();
          if (!(await request(w, j))) this.failures++;
          this.latencies.push(performance.now() - t);
        }
      }),
    );
    this.ms += performance.now() - started;
  }
  result() {
    const sorted = Float64Array.from(this.latencies).sort();
    const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))].toFixed(2);
    const perSecond = Math.round((sorted.length * 1000) / this.ms);
    return { name: this.name, perSecond, p50: pct(0.5), p99: pct(0.99), failures: this.failures };
  }
}

async function setup(dialect) {
  const testStore = await openTestStore(dialect, { pgPoolSize: WORKERS });
  const dataDir = mkdtempSync(join(tmpdir(), 'presence-bench-idem-'));
  const config = loadConfig(inProcessServiceEnv(dataDir));
  // No monthly challenge quota: the bench issues more challenges than the free plan allows.
  const billing = { ...DEFAULT_BILLING_SETTINGS, defaultPlan: { ...FREE_PLAN, monthlyChallengeQuota: null } };
  const deps = await depsFromStore(testStore.store, config.masterKey, undefined, {}, billing);
  const composed = await composeWith(deps, config, false);
  const { apiKey } = await createTenant(deps, { name: 'bench', rpId: RP_ID, origins: [ORIGIN] });
  const close = async () => {
    await composed.app.close();
    await testStore.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { app: composed.app, apiKey, close };
}

async function benchDialect(dialect) {
  const { app, apiKey, close } = await setup(dialect);
  const post = async (url, body, key) => {
    const headers = { authorization: `Bearer ${apiKey}`, ...(key ? { 'idempotency-key': key } : {}) };
    return app.inject({ method: 'POST', url, headers, payload: body });
  };
  const expect = (res, status) => {
    if (res.statusCode !== status) throw new Error(`${res.statusCode} ${res.body}`);
    return res.json();
  };
  let unique = 0;
  const actionHash = () => (++unique).toString(16).padStart(64, '0');
  try {
    const authenticators = [];
    for (let w = 0; w < WORKERS; w++) {
      const a = new SoftAuthenticator(RP_ID, ORIGIN);
      const options = expect(await post('/v1/presence/credentials/options', { subject: `bench-${w}` }), 200);
      const credential = a.register(options.publicKey.challenge);
      expect(
        await post('/v1/presence/credentials', { registrationId: options.registrationId, credential }),
        201,
      );
      authenticators.push(a);
    }
    /** Per worker, PER_WORKER challenges for its subject and the assertions over them, in counter order. */
    const prepare = async () => {
      const prepared = [];
      for (let w = 0; w < WORKERS; w++) {
        prepared.push([]);
        for (let j = 0; j < PER_WORKER; j++) {
          const c = expect(
            await post('/v1/presence/challenge', { actionHashHex: actionHash(), subject: `bench-${w}` }),
            201,
          );
          prepared[w].push({
            challengeId: c.challengeId,
            assertion: authenticators[w].assert(c.publicKey.challenge),
          });
        }
      }
      return prepared;
    };
    const m = Object.fromEntries(
      ['challenge', 'challenge+key', 'challenge replay', 'verify', 'verify+key'].map((n) => [
        n,
        new Measure(n),
      ]),
    );
    const keyed = [];
    for (let round = 0; round < ROUNDS; round++) {
      await m['challenge'].round(
        async () =>
          (await post('/v1/presence/challenge', { actionHashHex: actionHash() })).statusCode === 201,
      );
      await m['challenge+key'].round(async () => {
        const request = [{ actionHashHex: actionHash() }, `k-${randomBytes(8).toString('hex')}`];
        keyed.push(request);
        return (await post('/v1/presence/challenge', ...request)).statusCode === 201;
      });
      for (const [name, withKey] of [
        ['verify', false],
        ['verify+key', true],
      ]) {
        const prepared = await prepare();
        await m[name].round(async (w, j) => {
          const key = withKey ? `v-${randomBytes(8).toString('hex')}` : undefined;
          return (
            (await post('/v1/presence/verify', prepared[w][j], key)).json().decision === 'PRESENCE_VERIFIED'
          );
        });
      }
    }
    let replayed = 0;
    await m['challenge replay'].round(async () => {
      const res = await post('/v1/presence/challenge', ...keyed[replayed++ % keyed.length]);
      return res.statusCode === 201 && res.headers['idempotent-replayed'] === 'true';
    });
    return Object.values(m).map((x) => x.result());
  } finally {
    await close();
  }
}

const dialects = values.db === 'both' ? ['sqlite', 'postgres'] : [values.db];
console.log(
  `Idempotency-Key overhead: ${PER_WORKER * WORKERS * ROUNDS} requests per phase (${ROUNDS} alternating rounds), ` +
    `${WORKERS} concurrent, in process (app.inject), node ${process.version}`,
);
for (const dialect of dialects) {
  if (dialect === 'postgres' && !(await pgAvailable())) continue;
  const results = await benchDialect(dialect);
  const ceiling = Object.fromEntries(results.map((r) => [r.name, r.perSecond]));
  console.log(`\n${dialect}`);
  console.log('phase              req/s   vs ceiling   p50 ms   p99 ms   failures');
  for (const r of results) {
    const base = r.name.startsWith('verify') ? ceiling['verify'] : ceiling['challenge'];
    const ratio = `${((r.perSecond / base) * 100).toFixed(0)}%`;
    console.log(
      `${r.name.padEnd(17)}${String(r.perSecond).padStart(7)}${ratio.padStart(13)}${r.p50.padStart(9)}${r.p99.padStart(9)}${String(r.failures).padStart(11)}`,
    );
  }
}
