// bench/receipt-log/integration.mjs: what one receipt-log checkpoint costs the process that signs
// it, on SQLite and PostgreSQL (after `npm run build`).
//   node bench/receipt-log/integration.mjs [--db sqlite|postgres|both] [--tenants 16] [--rounds 20]
//     [--receipts 50] [--pg-url postgres://postgres@127.0.0.1:5432]
// Each round commits --receipts receipts for each of --tenants tenants, then integrates every
// tenant once, the way the receipt-log job does (one process, its right-edge cache kept across
// rounds). Printed per checkpoint: SQL statements (each a round trip on PostgreSQL; counted in one
// more round, on a second store with tracing on: one span per statement), wall time and this
// process's CPU (on the untraced store). The same rounds run twice, alternating: with the job's
// cache ("warm") and without it ("cold": every append reads the right edge back, as a process does
// after another one integrated). Yardstick from the same run: one `select 1` round trip on the
// same store, and one Ed25519 checkpoint signature.
// It also runs against a build from before the right-edge cache (copy it into that checkout):
// how the "before" figures of docs/performance-history.md were taken.
/* global Buffer, console, performance, process */
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { signNoteLine } from '@presence/sdk/node';
import { sql } from 'kysely';
import * as integration from '../../packages/server/dist/domain/receipt-log/integrate-receipt-log.js';
import { migrateDatabase } from '../../packages/server/dist/storage/migrate-database.js';
import { openDatabase } from '../../packages/server/dist/storage/open-database.js';
import { createStore } from '../../packages/server/dist/storage/open-store.js';
import { seedTenant, TestRecords } from '../../packages/server/dist/storage/test-records.js';
import { createBenchDatabase } from '../pg-database.mjs';

const { values: args } = parseArgs({
  options: {
    db: { type: 'string', default: 'both' },
    tenants: { type: 'string', default: '16' },
    rounds: { type: 'string', default: '20' },
    receipts: { type: 'string', default: '50' },
    'pg-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
  },
});
const TENANTS = Number(args.tenants);
const ROUNDS = Number(args.rounds);
const RECEIPTS = Number(args.receipts);
const dialects = args.db === 'both' ? ['sqlite', 'postgres'] : [args.db];

const exporter = new InMemorySpanExporter();
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const tracer = provider.getTracer('bench');
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const rawPublicKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
const signer = {
  kid: 'bench',
  rawPublicKey,
  signCheckpoint: (origin, body) => `${body}\n${signNoteLine(body, origin, privateKey, rawPublicKey)}`,
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f2 = (x) => x.toFixed(2);

console.log(
  `receipt-log integration: ${TENANTS} tenants × ${ROUNDS} rounds of ${RECEIPTS} receipts each; per checkpoint, medians of the rounds`,
);
for (const dialect of dialects) await run(dialect);
await provider.shutdown();

async function run(dialect) {
  const scratch = dialect === 'sqlite' ? mkdtempSync(join(tmpdir(), 'presence-bench-integrate-')) : undefined;
  const database =
    dialect === 'postgres'
      ? await createBenchDatabase(args['pg-url'], { prefix: 'presence_bench_log' })
      : undefined;
  const options =
    dialect === 'sqlite'
      ? { sqlitePath: join(scratch, 'presence.sqlite') }
      : { databaseUrl: database.url, sqlitePath: '' };
  try {
    await migrateDatabase(options);
    // Timed on an untraced store; a traced one on the same database counts the statements.
    const handle = await openDatabase(options);
    const store = createStore(handle);
    const tracedHandle = await openDatabase({ ...options, tracer });
    const traced = createStore(tracedHandle);
    const deps = { store, clock: { now: () => Date.now() }, logOrigin: 'bench.example' };
    const records = new TestRecords();
    // Two groups of tenants, one per way, so each way appends to logs of the same sizes.
    const groups = { warm: [], cold: [] };
    for (const way of Object.keys(groups)) {
      for (let t = 0; t < TENANTS; t += 1) groups[way].push(await seedTenant(store, records));
    }
    // A build from before the cache has none: both ways then run as that build did.
    const edges = integration.createRightEdgeCache?.(deps.clock);
    const per = { warm: [], cold: [] };
    const statements = {};
    // The last round runs on the traced store, untimed.
    for (let round = 0; round <= ROUNDS; round += 1) {
      const counting = round === ROUNDS;
      for (const way of round % 2 === 0 ? ['warm', 'cold'] : ['cold', 'warm']) {
        for (const { tenant, policy } of groups[way])
          await commitReceipts(store, records, tenant.id, policy.id);
        exporter.reset();
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (const { tenant } of groups[way]) {
          const size = await integration.integrateReceiptLog(
            counting ? { ...deps, store: traced } : deps,
            signer,
            tenant.id,
            { maxLeaves: 10_000, edges: way === 'warm' ? edges : undefined },
          );
          if (size !== (round + 1) * RECEIPTS) throw new Error(`integrated to ${size}`);
        }
        const wall = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        if (counting) statements[way] = exporter.getFinishedSpans().length / TENANTS;
        // The first round creates each log (no edge yet either way): kept apart.
        else if (round > 0)
          per[way].push({ wallMs: wall / TENANTS, cpuUs: (cpu.user + cpu.system) / TENANTS });
      }
    }
    const yardstick = await measureYardstick(handle.db);
    for (const way of ['warm', 'cold']) {
      const rows = per[way];
      console.log(
        `${dialect} ${way}: ${statements[way]} statements, ${f2(median(rows.map((r) => r.wallMs)))} ms, ${Math.round(median(rows.map((r) => r.cpuUs)))} µs CPU per checkpoint`,
      );
    }
    console.log(
      `${dialect} yardstick: select 1 round trip ${f2(yardstick.roundTripMs)} ms (${Math.round(yardstick.roundTripCpuUs)} µs CPU); Ed25519 signature ${Math.round(yardstick.signUs)} µs`,
    );
    await store.close();
    await traced.close();
  } finally {
    if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    await database?.drop();
  }
}

/** RECEIPTS receipts for one tenant, in one transaction (seq stays gap-free and in order). */
async function commitReceipts(store, records, tenantId, policyId) {
  await store.transaction(async (tx) => {
    for (let i = 0; i < RECEIPTS; i += 1) {
      const challenge = records.challenge(tenantId, policyId);
      await tx.challenges.insert(challenge);
      await tx.receipts.insert(
        records.receipt(challenge, {
          issuedAt: Date.now(),
          hashHex: createHash('sha256').update(challenge.id).digest('hex'),
        }),
      );
    }
  });
}

/** Medians over 2,000 tries, after as many to warm up. */
async function measureYardstick(db) {
  const trips = [];
  const cpus = [];
  for (let i = 0; i < 4000; i += 1) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await sql`select 1`.execute(db);
    const cpu = process.cpuUsage(cpu0);
    if (i >= 2000) {
      trips.push(performance.now() - t0);
      cpus.push(cpu.user + cpu.system);
    }
  }
  const body = Buffer.from('bench.example/presence/t\n1000\n' + 'A'.repeat(44) + '\n');
  const t0 = performance.now();
  for (let i = 0; i < 2000; i += 1) sign(null, body, privateKey);
  const signUs = ((performance.now() - t0) * 1000) / 2000;
  return { roundTripMs: median(trips), roundTripCpuUs: median(cpus), signUs };
}
