import { formatCheckpointBody, receiptLeafHash } from '@presence/sdk/node';
import { BoundedCache } from '../bounded-cache.js';
import type { Deps } from '../deps.js';
import type { LogSigner } from './log-signer.js';
import { logOrigin } from './log-signer.js';
import { treeRoot } from './merkle-proofs.js';
import { createLogTreeReader } from './read-log-tree.js';
import { appendToTiles, rightEdgeTiles, tileId } from './tile-math.js';

export interface IntegrateOptions {
  /** Leaves appended per checkpoint at most. */
  maxLeaves: number;
  /** The right edges this process wrote last (the receipt-log job keeps one); none: read them. */
  edges?: RightEdgeCache | undefined;
}

/**
 * Each tenant's right-edge tiles at the size this process last integrated to, so its next append
 * need not read back what it just wrote. An entry serves only an append from exactly that size:
 * the tiles of a size are fixed by the receipts below it, so an entry is never stale, only unused
 * when another process integrated in between.
 */
export type RightEdgeCache = BoundedCache<{ size: number; tiles: ReadonlyMap<string, Buffer> }>;

/** Partial tiles are at most 8 KiB and a tree has about three, so 256 tenants stay under 6 MiB. */
const EDGE_CACHE_TENANTS = 256;

export function createRightEdgeCache(clock: Pick<Deps['clock'], 'now'>): RightEdgeCache {
  return new BoundedCache({ maxEntries: EDGE_CACHE_TENANTS, now: () => clock.now() });
}

type IntegrateDeps = Pick<Deps, 'store' | 'clock' | 'logOrigin'>;

/**
 * Appends a tenant's receipts beyond its integrated size to its tree (seq n → leaf n − 1) and
 * signs a checkpoint of the new size. Reads and hashing happen outside the transaction; the
 * write is a compare-and-set on the size, so concurrent integrators never append twice.
 * Returns the new size, or undefined when there was nothing to do or another process won.
 * On PostgreSQL each statement is a round trip: one read (two without a cached right edge), then
 * BEGIN, the compare-and-set, the tiles, the checkpoint and COMMIT.
 */
export async function integrateReceiptLog(
  deps: IntegrateDeps,
  signer: LogSigner,
  tenantId: string,
  options: IntegrateOptions,
): Promise<number | undefined> {
  const log = deps.store.receiptLogTree;
  const pending = await log.leavesToIntegrate(tenantId, options.maxLeaves);
  if (pending === undefined) return undefined;
  const { fromSize, leaves } = pending;
  leaves.forEach((row, i) => {
    if (row.seq !== fromSize + i + 1)
      throw new Error(`receipt seq ${fromSize + i + 1} of ${tenantId} is missing`);
  });
  const edge = await rightEdge(log, options.edges, tenantId, fromSize);
  const tiles = appendToTiles(
    fromSize,
    edge,
    leaves.map((r) => receiptLeafHash(r.hashHex)),
  );
  const size = fromSize + leaves.length;
  const written = new Map(tiles.map((t) => [tileId(t), t.hashes]));
  // The root needs the new tree's right edge only: each tile of it was just written or, where
  // nothing was appended at its level, is an old edge tile. Stored tiles are read only as a last
  // resort.
  const known = (id: string) => written.get(id) ?? edge.get(id);
  const reader = createLogTreeReader(
    {
      async readTiles(_tenant, keys) {
        const hits = keys.flatMap((k) => {
          const hashes = known(tileId(k));
          return hashes === undefined ? [] : [{ ...k, hashes }];
        });
        const stored = keys.filter((k) => known(tileId(k)) === undefined);
        return [...hits, ...(await log.readTiles(tenantId, stored))];
      },
    },
    tenantId,
  );
  const rootHash = await reader.compute((read) => treeRoot(read, size));
  const origin = logOrigin(deps.logOrigin, tenantId);
  const note = signer.signCheckpoint(origin, formatCheckpointBody(origin, size, rootHash));
  const checkpoint = { tenantId, treeSize: size, rootHash, note, createdAt: deps.clock.now() };
  const won = await deps.store.transaction((tx) =>
    tx.receiptLogTree.appendTiles(tenantId, fromSize, tiles, checkpoint),
  );
  if (!won) {
    options.edges?.delete(tenantId);
    return undefined;
  }
  const next = rightEdgeTiles(size).map((key) => [tileId(key), known(tileId(key))] as const);
  if (next.every(([, hashes]) => hashes !== undefined)) {
    options.edges?.set(tenantId, { size, tiles: new Map(next as [string, Buffer][]) });
  } else {
    options.edges?.delete(tenantId);
  }
  return size;
}

/** The right-edge tiles of the tree at `size`: from the cache when this process wrote them. */
async function rightEdge(
  log: Deps['store']['receiptLogTree'],
  edges: RightEdgeCache | undefined,
  tenantId: string,
  size: number,
): Promise<ReadonlyMap<string, Buffer>> {
  const cached = edges?.get(tenantId);
  if (cached !== undefined && cached.size === size) return cached.tiles;
  const keys = rightEdgeTiles(size);
  return new Map((await log.readTiles(tenantId, keys)).map((t) => [tileId(t), t.hashes]));
}
