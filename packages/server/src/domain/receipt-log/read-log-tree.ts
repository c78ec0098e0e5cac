import type { ReceiptLogStore, TileKey } from './ports.js';
import { nodesNeeded, type NodeReader } from './merkle-proofs.js';
import { nodeHashFromTile, tileId, tileOfNode, type NodeKey } from './tile-math.js';

/** Tiles kept between calls of one reader (an export reads thousands of neighbouring proofs). */
const MAX_CACHED_TILES = 256;
/** Node hashes kept: neighbouring proofs share their upper nodes; a lower node serves a few. */
const MAX_CACHED_NODES = 256;

/**
 * A cache of recently used entries in two generations of at most `limit / 2` each: a hit in the
 * older one moves the entry up, and when the younger one is full the older one is dropped whole.
 * A hit in the younger one (most hits: every proof reads the same upper nodes and tiles) changes
 * nothing. Reordering a Map on every hit instead rebuilt its table over and over, and those
 * tables, alive at each young collection, were promoted and piled up in the old generation
 * (docs/performance.md, export peak RSS).
 */
class RecentlyUsed<V> {
  #young = new Map<string, V>();
  #old = new Map<string, V>();
  readonly #half: number;

  constructor(limit: number) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  get(key: string): V | undefined {
    const hit = this.#young.get(key);
    if (hit !== undefined) return hit;
    const older = this.#old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): void {
    this.#young.set(key, value);
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
  }
}

/**
 * Computes hashes over a tenant's stored tiles. A computation runs twice: once to learn which
 * nodes it needs (the shape of a proof depends only on sizes), then, after one batched read of
 * the missing tiles, for real. So a proof costs O(log n) hashes and one round trip.
 */
export interface LogTreeReader {
  compute<T>(fn: (read: NodeReader) => T): Promise<T>;
}

export function createLogTreeReader(
  store: Pick<ReceiptLogStore, 'readTiles'>,
  tenantId: string,
): LogTreeReader {
  const tiles = new RecentlyUsed<Buffer>(MAX_CACHED_TILES);
  const nodes = new RecentlyUsed<Buffer>(MAX_CACHED_NODES);
  const read: NodeReader = (node) => {
    const key = `${node.level}/${node.index}`;
    let hash = nodes.get(key);
    if (!hash) {
      hash = nodeHashFromTile(tiles, node);
      nodes.set(key, hash);
    }
    return hash;
  };
  return {
    async compute(fn) {
      const missing = missingTiles(nodesNeeded(fn), tiles);
      if (missing.length > 0) {
        for (const t of await store.readTiles(tenantId, missing)) tiles.set(tileId(t), t.hashes);
      }
      return fn(read);
    },
  };
}

/**
 * The tiles a computation still needs. Looking up the cached ones marks them as just used, so
 * the tiles read next can push out only older ones, never a tile this computation relies on: a
 * computation needs a few tiles per tree level, far fewer than the half of the cache that one
 * generation holds (a walk over the leaves keeps reading new level-0 tiles while the upper-level
 * tiles it also needs stay put). Nodes already in the node cache count too: the computation
 * itself can push them out of it, and then reads them from their tile.
 */
function missingTiles(needed: NodeKey[], tiles: RecentlyUsed<Buffer>): TileKey[] {
  const out = new Map<string, TileKey>();
  for (const node of needed) {
    const { tile, first, count } = tileOfNode(node);
    const key = tileId(tile);
    const have = tiles.get(key);
    if (!have || have.length < (first + count) * 32) out.set(key, tile);
  }
  return [...out.values()];
}
