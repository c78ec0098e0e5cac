import {
  appendToCompactRange,
  compactRangeRoot,
  formatCheckpointBody,
  receiptLeafHash,
} from '@presence/sdk/node';
import { BoundedCache } from '../bounded-cache.js';
import type { Deps } from '../deps.js';
import type { LogSigner } from './log-signer.js';
import { logOrigin } from './log-signer.js';
import { appendToTiles, compactRangeFromTiles, rightEdgeTiles, tileId } from './tile-math.js';

export interface IntegrateOptions {
  /** Leaves appended per checkpoint at most. */
  maxLeaves: number;
  /** The right edges this process wrote last (the receipt-log job keeps one); none: read them. */
  edges?: RightEdgeCache | undefined;
}

/**
 * Each tenant's right edge at the size this process last integrated to: the partial tiles and the
 * compact range (the roots of the tree's perfect subtrees), so its next append reads nothing back
 * and hashes only what it adds. An entry serves only an append from exactly that size: the edge of
 * a size is fixed by the receipts below it, so an entry is never stale, only unused when another
 * process integrated in between.
 */
export type RightEdgeCache = BoundedCache<RightEdge & { size: number }>;

interface RightEdge {
  tiles: ReadonlyMap<string, Buffer>;
  range: readonly Buffer[];
}

/**
 * Partial tiles are at most 8 KiB and a tree has about three; a range is a few hundred bytes. So
 * 256 tenants stay under 6 MiB.
 */
const EDGE_CACHE_TENANTS = 256;

export function createRightEdgeCache(clock: Pick<Deps['clock'], 'now'>): RightEdgeCache {
  return new BoundedCache({ maxEntries: EDGE_CACHE_TENANTS, now: () => clock.now() });
}

type IntegrateDeps = Pick<Deps, 'store' | 'clock' | 'logOrigin'>;

/**
 * Appends a tenant's receipts beyond its integrated size to its tree (seq n → leaf n − 1) and
 * signs a checkpoint of the new size. Reads and hashing happen outside the transaction; the
 * write is a compare-and-set on the size, so concurrent integrators never append twice.
 * Returns the new size; 'lost' when another process integrated first (the work was wasted: the
 * receipt-log job leases logs so that this is rare); undefined when nothing waited.
 * On PostgreSQL each statement is a round trip: one read (two without a cached right edge), then
 * BEGIN, one statement for the compare-and-set, the tiles and the checkpoint, and COMMIT.
 */
export async function integrateReceiptLog(
  deps: IntegrateDeps,
  signer: LogSigner,
  tenantId: string,
  options: IntegrateOptions,
): Promise<number | 'lost' | undefined> {
  const log = deps.store.receiptLogTree;
  const pending = await log.leavesToIntegrate(tenantId, options.maxLeaves);
  if (pending === undefined) return undefined;
  const { fromSize, leaves } = pending;
  leaves.forEach((row, i) => {
    if (row.seq !== fromSize + i + 1)
      throw new Error(`receipt seq ${fromSize + i + 1} of ${tenantId} is missing`);
  });
  const edge = await rightEdge(log, options.edges, tenantId, fromSize);
  const leafHashes = leaves.map((r) => receiptLeafHash(r.hashHex));
  const tiles = appendToTiles(fromSize, edge.tiles, leafHashes);
  const range = appendToCompactRange(fromSize, edge.range, leafHashes);
  const size = fromSize + leaves.length;
  const rootHash = compactRangeRoot(range);
  const origin = logOrigin(deps.logOrigin, tenantId);
  const note = signer.signCheckpoint(origin, formatCheckpointBody(origin, size, rootHash));
  const checkpoint = { tenantId, treeSize: size, rootHash, note, createdAt: deps.clock.now() };
  const won = await deps.store.transaction((tx) =>
    tx.receiptLogTree.appendTiles(tenantId, fromSize, tiles, checkpoint),
  );
  if (!won) {
    options.edges?.delete(tenantId);
    return 'lost';
  }
  // The new edge: each of its tiles was just written or, where nothing was appended at its
  // level, is an old edge tile.
  const written = new Map(tiles.map((t) => [tileId(t), t.hashes]));
  const next = new Map<string, Buffer>();
  for (const key of rightEdgeTiles(size)) {
    const hashes = written.get(tileId(key)) ?? edge.tiles.get(tileId(key));
    if (hashes === undefined) {
      options.edges?.delete(tenantId);
      return size;
    }
    next.set(tileId(key), hashes);
  }
  options.edges?.set(tenantId, { size, tiles: next, range });
  return size;
}

/** The right edge of the tree at `size`: from the cache when this process wrote it, else read. */
async function rightEdge(
  log: Deps['store']['receiptLogTree'],
  edges: RightEdgeCache | undefined,
  tenantId: string,
  size: number,
): Promise<RightEdge> {
  const cached = edges?.get(tenantId);
  if (cached !== undefined && cached.size === size) return cached;
  const keys = rightEdgeTiles(size);
  const tiles = new Map((await log.readTiles(tenantId, keys)).map((t) => [tileId(t), t.hashes]));
  return { tiles, range: compactRangeFromTiles(size, tiles) };
}
