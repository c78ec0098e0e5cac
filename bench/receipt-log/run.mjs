// bench/receipt-log: the per-tenant receipt log at 10^6 leaves, on SQLite (after `npm run build`).
//   node bench/receipt-log/run.mjs [--leaves 1000000] [--rate 600] [--seconds 10]
// 1. Scale: appends --leaves leaf hashes to one tenant's tree the way integration does (tiles
//    extended in 10,000-leaf batches, a signed checkpoint per batch, one transaction each), with
//    random leaves instead of receipt rows (the fast bulk path); prints leaves/s and the tile rows.
// 2. Proofs: inclusion and consistency proof size and time at 10^3 … 10^6 leaves, read from the
//    stored tiles (a fresh reader per proof: its tile reads are counted).
// 3. Witness: presence-witness's check over HTTP at 10^6 leaves (checkpoint, consistency proof
//    from 10^6 − 1,000, verification, cosignature posted back).
// 4. Lag: real receipt rows committed at --rate per second for --seconds while the receipt-log job
//    runs at its default 500 ms interval; lag = checkpoint time − receipt commit time, p50/p99.
/* global console, performance, setTimeout */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashLeaf, formatCheckpointBody, loadOrCreateWitnessKey, witnessOnce } from '@presence/sdk/node';
import { composeWith, depsFromStore } from '../../packages/server/dist/compose.js';
import { loadConfig } from '../../packages/server/dist/config/load-config.js';
import { createTenant } from '../../packages/server/dist/domain/tenants/create-tenant.js';
import { newId } from '../../packages/server/dist/domain/ids.js';
import { loadLogSigner, logOrigin } from '../../packages/server/dist/domain/receipt-log/log-signer.js';
import { treeRoot } from '../../packages/server/dist/domain/receipt-log/merkle-proofs.js';
import { proveConsistency, proveInclusion } from '../../packages/server/dist/domain/receipt-log/prove-log.js';
import { createLogTreeReader } from '../../packages/server/dist/domain/receipt-log/read-log-tree.js';
import {
  appendToTiles,
  rightEdgeTiles,
  tileId,
} from '../../packages/server/dist/domain/receipt-log/tile-math.js';
import { migrateDatabase } from '../../packages/server/dist/storage/migrate-database.js';
import { openStore } from '../../packages/server/dist/storage/open-store.js';
import { runJobs } from '../../packages/server/dist/worker/run-jobs.js';
import { createReceiptLogJob } from '../../packages/server/dist/worker/receipt-log-job.js';
import { seedReceipts } from '../export/seed-receipts.mjs';

const { values } = parseArgs({
  options: {
    leaves: { type: 'string', default: '1000000' },
    rate: { type: 'string', default: '600' },
    seconds: { type: 'string', default: '10' },
  },
});
const LEAVES = Number(values.leaves);
const dir = mkdtempSync(join(tmpdir(), 'presence-bench-log-'));
const masterKey = randomBytes(32);
const sqlitePath = join(dir, 'presence.sqlite');
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const ms = (t) => `${t.toFixed(2)} ms`;

try {
  // Seeds one real receipt (tenant, credential, policy) for the lag phase to copy.
  const seeded = await seedReceipts({ sqlitePath, masterKey, receipts: 1, credentials: 1, log: () => {} });
  await migrateDatabase({ sqlitePath });
  const store = await openStore({ sqlitePath });
  const deps = await depsFromStore(store, masterKey);
  const signer = await loadLogSigner(deps);

  // 1. Scale
  const { tenant } = await createTenant(deps, {
    name: 'bulk',
    rpId: 'app.example',
    origins: ['https://app.example'],
  });
  const marks = [...new Set([1000, 10_000, 100_000, LEAVES - 1000, LEAVES])]
    .filter((m) => m > 0 && m <= LEAVES)
    .sort((a, b) => a - b);
  let size = 0;
  const started = performance.now();
  while (size < LEAVES) {
    const next = Math.min(size + 10_000, marks.find((m) => m > size) ?? LEAVES);
    const leaves = Array.from({ length: next - size }, () => hashLeaf(randomBytes(32)));
    const edge = new Map(
      (await store.receiptLogTree.readTiles(tenant.id, rightEdgeTiles(size))).map((t) => [
        tileId(t),
        t.hashes,
      ]),
    );
    const tiles = appendToTiles(size, edge, leaves);
    const written = new Map(tiles.map((t) => [tileId(t), t]));
    const reader = createLogTreeReader(
      {
        readTiles: async (_t, keys) => [
          ...keys.filter((k) => written.has(tileId(k))).map((k) => written.get(tileId(k))),
          ...(await store.receiptLogTree.readTiles(
            tenant.id,
            keys.filter((k) => !written.has(tileId(k))),
          )),
        ],
      },
      tenant.id,
    );
    const rootHash = await reader.compute((read) => treeRoot(read, next));
    const origin = logOrigin('bench.example', tenant.id);
    const note = signer.signCheckpoint(origin, formatCheckpointBody(origin, next, rootHash));
    const checkpoint = { tenantId: tenant.id, treeSize: next, rootHash, note, createdAt: Date.now() };
    await store.transaction((tx) => tx.receiptLogTree.appendTiles(tenant.id, size, tiles, checkpoint));
    size = next;
  }
  const buildSeconds = (performance.now() - started) / 1000;
  console.log(
    `scale: ${LEAVES} leaves appended in ${buildSeconds.toFixed(1)} s (${Math.round(LEAVES / buildSeconds)} leaves/s, 10,000 per checkpoint)`,
  );
  const tileRows = (await store.receiptLogTree.readTiles(tenant.id, rightEdgeTiles(LEAVES))).length;
  const fileBytes =
    statSync(sqlitePath).size + (statSync(`${sqlitePath}-wal`, { throwIfNoEntry: false })?.size ?? 0);
  console.log(
    `scale: ${Math.ceil(LEAVES / 256) + Math.ceil(LEAVES / 65536) + 1} tile rows (${tileRows} of them partial), SQLite file + WAL ${(fileBytes / 1e6).toFixed(1)} MB for the whole bench database`,
  );

  // 2. Proofs
  console.log(
    'proofs: size n | inclusion hashes (longest of 200) | its bytes (JSON) | time p50 / p99 | consistency n/2+1→n hashes | time',
  );
  for (const n of marks.filter((m) => m !== LEAVES - 1000)) {
    const times = [];
    let longest = { hashes: [] };
    for (let i = 0; i < 200; i++) {
      const leafIndex = Math.floor(Math.random() * n);
      const t0 = performance.now();
      const proof = await proveInclusion(deps, tenant.id, { leafIndex, treeSize: n });
      times.push(performance.now() - t0);
      if (proof.hashes.length > longest.hashes.length) longest = proof;
    }
    times.sort((a, b) => a - b);
    const t0 = performance.now();
    const consistency = await proveConsistency(deps, tenant.id, { from: Math.floor(n / 2) + 1, to: n });
    const ct = performance.now() - t0;
    console.log(
      `proofs: ${n} | ${longest.hashes.length} | ${JSON.stringify(longest).length} | ${ms(pct(times, 50))} / ${ms(pct(times, 99))} | ${consistency.hashes.length} | ${ms(ct)}`,
    );
  }

  // 3. Witness over HTTP at 10^6 leaves
  const config = loadConfig({
    PRESENCE_DATA_DIR: dir,
    PRESENCE_DEV_TENANT: 'false',
    PRESENCE_MASTER_KEY: masterKey.toString('base64url'),
    PRESENCE_RATE_LIMIT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '0',
    PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '0',
    PRESENCE_LOG_ORIGIN: 'bench.example',
  });
  const composed = await composeWith({ ...deps, logOrigin: 'bench.example' }, config, false);
  const { createApiKey } = await import('../../packages/server/dist/domain/api-keys/create-api-key.js');
  const { secret: apiKey } = await createApiKey(deps, tenant.id, {
    name: 'witness',
    scopes: ['receipts:read'],
  });
  const url = await composed.app.listen({ port: 0, host: '127.0.0.1' });
  const before = (await store.receiptLogTree.checkpointAt(tenant.id, LEAVES - 1000)).note;
  const key = loadOrCreateWitnessKey(join(dir, 'witness.key'), 'bench.example/witness').key;
  const witnessTimes = [];
  for (let i = 0; i < 20; i++) {
    const stateDir = join(dir, `w${i}`);
    mkdirSync(stateDir);
    writeFileSync(join(stateDir, 'checkpoint'), before);
    writeFileSync(join(stateDir, 'log-keys'), `${signer.rawPublicKey.toString('base64')}\n`);
    const t0 = performance.now();
    const outcome = await witnessOnce({ url, apiKey, stateDir, key });
    witnessTimes.push(performance.now() - t0);
    if (outcome.status !== 'cosigned' && outcome.status !== 'unchanged')
      throw new Error(JSON.stringify(outcome));
  }
  witnessTimes.sort((a, b) => a - b);
  console.log(
    `witness: check ${LEAVES - 1000} → ${LEAVES} over HTTP (fetch, consistency proof, verify, cosign, post): p50 ${ms(pct(witnessTimes, 50))}, p99 ${ms(pct(witnessTimes, 99))}`,
  );
  await composed.app.close();

  // 4. Integration lag under a steady receipt stream
  const template = await store.receipts.getByChallenge(
    seeded.tenantId,
    (await store.receiptLog.list(seeded.tenantId, {}, { order: 'asc', after: null, stop: null }, 1))[0]
      .challenge.id,
  );
  const challenge = await store.challenges.get(seeded.tenantId, template.challengeId);
  const rate = Number(values.rate);
  const seconds = Number(values.seconds);
  const jobs = runJobs([createReceiptLogJob(deps, { intervalMs: 500 })], false);
  const produceStart = performance.now();
  let produced = 0;
  while (performance.now() - produceStart < seconds * 1000) {
    const due = Math.floor(((performance.now() - produceStart) / 1000) * rate) - produced;
    if (due > 0) {
      await store.transaction(async (tx) => {
        for (let i = 0; i < due; i++) {
          const c = { ...challenge, id: newId(deps, 'chl') };
          await tx.challenges.insert(c);
          const at = Date.now();
          await tx.receipts.insert({
            ...template,
            id: newId(deps, 'rct'),
            challengeId: c.id,
            issuedAt: at,
            hashHex: randomBytes(32).toString('hex'),
          });
        }
      });
      produced += due;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  while ((await store.receiptLogTree.treeSize(seeded.tenantId)) < produced + 1)
    await new Promise((r) => setTimeout(r, 50));
  await jobs.stop();
  const rows = await store.receiptLog.list(
    seeded.tenantId,
    {},
    { order: 'asc', after: 1, stop: null },
    1_000_000,
  );
  const lags = [];
  const sizes = await listCheckpointSizes(store, seeded.tenantId, produced + 1);
  let k = 0;
  for (const r of rows) {
    while (sizes[k].treeSize < r.seq) k += 1;
    lags.push(sizes[k].createdAt - r.receipt.issuedAt);
  }
  lags.sort((a, b) => a - b);
  console.log(
    `lag: ${produced} receipts at ${rate}/s for ${seconds} s, job every 500 ms: p50 ${pct(lags, 50)} ms, p99 ${pct(lags, 99)} ms, max ${lags.at(-1)} ms; ${sizes.length} checkpoints`,
  );
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

async function listCheckpointSizes(store, tenantId, upTo) {
  const out = [];
  for (let size = 1; size <= upTo;) {
    const cp = await firstCheckpointFrom(store, tenantId, size, upTo);
    out.push(cp);
    size = cp.treeSize + 1;
  }
  return out;
}

async function firstCheckpointFrom(store, tenantId, size, upTo) {
  for (let s = size; s <= upTo; s++) {
    const cp = await store.receiptLogTree.checkpointAt(tenantId, s);
    if (cp) return cp;
  }
  throw new Error(`no checkpoint at or after ${size}`);
}
