/**
 * The receipt log's integration step against a real store, on both dialects: what one checkpoint
 * costs in SQL statements (each a round trip on PostgreSQL, counted by the store's own tracing:
 * one span per statement), and that the right-edge tiles kept between runs never change a root,
 * even when another process integrated in between.
 */
import { generateKeyPairSync } from 'node:crypto';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { receiptLeafHash, rootFromLeafHashes, signNoteLine } from '@presence/sdk/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Store } from '../src/domain/ports.js';
import {
  integrateReceiptLog,
  createRightEdgeCache,
} from '../src/domain/receipt-log/integrate-receipt-log.js';
import type { LogSigner } from '../src/domain/receipt-log/log-signer.js';
import { treeRoot } from '../src/domain/receipt-log/merkle-proofs.js';
import { createLogTreeReader } from '../src/domain/receipt-log/read-log-tree.js';
import { addReceipts as addReceiptsTo, seedTenant, TestRecords, T0 } from '../src/storage/test-records.js';
import { openTestStore, type TestStore } from '../src/storage/testing.js';
import { describeEachDialect } from './support/each-dialect.js';

/** A throwaway log key: what is counted here is the storage work, not the key handling. */
function testSigner(): LogSigner {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const rawPublicKey = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    kid: 'test-log-key',
    rawPublicKey,
    signCheckpoint: (origin, body) => `${body}\n${signNoteLine(body, origin, privateKey, rawPublicKey)}`,
  };
}

describeEachDialect('receipt log integration', (dialect) => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const records = new TestRecords();
  const signer = testSigner();
  let db: TestStore;
  let deps: { store: Store; clock: { now(): number }; logOrigin: string };

  beforeAll(async () => {
    db = await openTestStore(dialect, { tracer: provider.getTracer('test') });
    deps = { store: db.store, clock: { now: () => Date.now() }, logOrigin: 'presence.test' };
  });
  afterAll(async () => {
    await db?.cleanup();
    await provider.shutdown();
  });

  const addReceipts = (tenantId: string, policyId: string, n: number) =>
    addReceiptsTo(db.store, records, tenantId, policyId, n);

  /** The statements `work` ran, by their first keyword. */
  async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
    exporter.reset();
    await work();
    return exporter.getFinishedSpans().map((s) => s.name);
  }

  /**
   * The latest checkpoint covers exactly `leaves`, and its root is both the one recomputed from
   * them and the one of the stored tiles, which every proof is served from. (The root is computed
   * from a compact range; the tiles are an independent record of the same tree.)
   */
  async function expectCheckpointOf(tenantId: string, leaves: readonly string[]): Promise<void> {
    const checkpoint = await db.store.receiptLogTree.latestCheckpoint(tenantId);
    expect(checkpoint?.treeSize).toBe(leaves.length);
    const root = Buffer.from(checkpoint!.rootHash);
    expect(root).toEqual(rootFromLeafHashes(leaves.map(receiptLeafHash)));
    const tiles = createLogTreeReader(db.store.receiptLogTree, tenantId);
    expect(root).toEqual(await tiles.compute((read) => treeRoot(read, leaves.length)));
  }

  it('signs a checkpoint with one read and one short transaction', async () => {
    const { tenant, policy } = await seedTenant(db.store, records);
    const leaves = await addReceipts(tenant.id, policy.id, 300);
    const edges = createRightEdgeCache(deps.clock);
    // The first checkpoint of a log: the tree's state row is created in the same statement.
    const first = await statementsOf(() =>
      integrateReceiptLog(deps, signer, tenant.id, { maxLeaves: 200, edges }),
    );
    // The next, right after, from the edge this process just wrote: nothing read but the leaves.
    const next = await statementsOf(() =>
      integrateReceiptLog(deps, signer, tenant.id, { maxLeaves: 200, edges }),
    );
    // Another process (no edge of its own) reads the right edge once.
    leaves.push(...(await addReceipts(tenant.id, policy.id, 5)));
    const cold = await statementsOf(() =>
      integrateReceiptLog(deps, signer, tenant.id, {
        maxLeaves: 200,
        edges: createRightEdgeCache(deps.clock),
      }),
    );
    // One read of the leaves (and the size), then one transaction: the compare-and-set on the
    // size (an insert for a new log), every grown tile in one statement, the checkpoint. SQLite's
    // group commit runs each transaction under a savepoint of its shared BEGIN IMMEDIATE. On
    // PostgreSQL the three writes are one statement.
    const transaction = (compareAndSet: string) =>
      dialect === 'sqlite'
        ? ['BEGIN', 'SAVEPOINT', compareAndSet, 'INSERT', 'INSERT', 'RELEASE', 'COMMIT']
        : ['BEGIN', 'WITH', 'COMMIT'];
    expect(first).toEqual(['SELECT', ...transaction('INSERT')]);
    expect(next).toEqual(['SELECT', ...transaction('UPDATE')]);
    expect(cold).toEqual(['SELECT', 'SELECT', ...transaction('UPDATE')]);
    expect(leaves).toHaveLength(305);
    await expectCheckpointOf(tenant.id, leaves);
  });

  it('appends once when two integrators start from the same size, a new log’s first included', async () => {
    const { tenant, policy } = await seedTenant(db.store, records);
    await addReceipts(tenant.id, policy.id, 3);
    const pending = await db.store.receiptLogTree.leavesToIntegrate(tenant.id, 10);
    expect(pending?.fromSize).toBe(0);
    expect(pending?.leaves.map((l) => l.seq)).toEqual([1, 2, 3]);
    // Each call writes a tile of its own bytes: a loser's must not land.
    let call = 0;
    const append = (fromSize: number, treeSize: number) =>
      db.store.transaction((tx) =>
        tx.receiptLogTree.appendTiles(
          tenant.id,
          fromSize,
          [{ level: 0, index: 0, hashes: Buffer.alloc(32 * treeSize, ++call) }],
          {
            tenantId: tenant.id,
            treeSize,
            rootHash: Buffer.alloc(32, treeSize),
            note: `note ${treeSize}`,
            createdAt: T0 + treeSize,
          },
        ),
      );
    expect(await append(0, 2)).toBe(true);
    expect(await append(0, 3)).toBe(false);
    expect(await append(2, 3)).toBe(true);
    expect(await append(2, 3)).toBe(false);
    expect(await db.store.receiptLogTree.treeSize(tenant.id)).toBe(3);
    expect(await db.store.receiptLogTree.leavesToIntegrate(tenant.id, 10)).toBeUndefined();
    expect((await db.store.receiptLogTree.latestCheckpoint(tenant.id))?.note).toBe('note 3');
    const [tile] = await db.store.receiptLogTree.readTiles(tenant.id, [{ level: 0, index: 0 }]);
    expect(tile?.hashes).toEqual(Buffer.alloc(96, 3));
  });

  it('keeps every root right when another process integrates between two of this one’s runs', async () => {
    const { tenant, policy } = await seedTenant(db.store, records);
    const mine = createRightEdgeCache(deps.clock);
    const theirs = createRightEdgeCache(deps.clock);
    const leaves: string[] = [];
    // Sizes that end on, just before and just after full tiles (256 leaves), so both levels' edges
    // are partial, full and new in turn. (Tile geometry at every level has its own unit tests.)
    for (const [n, edges] of [
      [255, mine],
      [2, theirs],
      [300, mine],
      [1, mine],
      [254, theirs],
      [1, theirs],
      [700, mine],
      [40, theirs],
      [7, mine],
    ] as const) {
      leaves.push(...(await addReceipts(tenant.id, policy.id, n)));
      while ((await integrateReceiptLog(deps, signer, tenant.id, { maxLeaves: 200, edges })) !== undefined) {
        // a backlog is integrated in batches
      }
      await expectCheckpointOf(tenant.id, leaves);
    }
  }, 60_000);
});
