import type { ReceiptLogStore, TileKey } from './ports.js';
import { nodesNeeded, type NodeReader } from './merkle-proofs.js';
import { nodeHashFromLevels, tileLevels, tileOfNode, type NodeKey } from './tile-math.js';

/**
 * Tiles kept between calls of one reader (an export reads thousands of neighbouring proofs), each
 * with every node it yields (`tileLevels`, ≤ 16 KiB a tile).
 */
const MAX_CACHED_TILES = 256;
/** Node hashes kept: neighbouring proofs share their upper nodes; a lower node serves a few. */
const MAX_CACHED_NODES = 256;

/**
 * A cache of recently used entries in two generations of at most `limit / 2` each: a hit in the
 * older one moves the entry up, and when the younger one is full the older one is dropped whole.
 * A hit in the younger one (most hits: every proof reads the same upper nodes and tiles) changes
 * nothing. Reordering a Map on every hit instead rebuilt its table over and over, and those
 * tables, alive at each young collection, were promoted and piled up in the old generation
 * (docs/performance-history.md, "Issue 10, third pass").
 */
class RecentlyUsed<K, V> {
  #young = new Map<K, V>();
  #old = new Map<K, V>();
  readonly #half: number;

  constructor(limit: number) {
    this.#half = Math.max(1, Math.floor(limit / 2));
  }

  get(key: K): V | undefined {
    const hit = this.#young.get(key);
    if (hit !== undefined) return hit;
    const older = this.#old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: K, value: V): void {
    this.#young.set(key, value);
    if (this.#young.size >= this.#half) {
      this.#old = this.#young;
      this.#young = new Map();
    }
  }
}

/**
 * Computes hashes over a tenant's stored tiles. A computation first runs on the cached tiles
 * alone; when one is missing, it runs twice: once to learn which nodes it needs (the shape of a
 * proof depends only on sizes), then, after one batched read of the missing tiles, for real. So a
 * proof costs O(log n) hashes and at most one round trip.
 */
export interface LogTreeReader {
  compute<T>(fn: (read: NodeReader) => T): Promise<T>;
  /**
   * The computation from cached tiles only, without waiting: undefined when a tile it needs is
   * not cached (then `compute` it). A walk over neighbouring leaves hits the cache for all but
   * about one proof in 256, and on this path a proof neither lists the nodes it needs nor waits.
   */
  computeCached<T>(fn: (read: NodeReader) => T): T | undefined;
}

/** Thrown inside a cached-only computation when a tile is missing; never leaves this module. */
const NOT_CACHED = new Error('a tile this computation needs is not cached');

/** A number per node or tile for the caches: levels stay below 64, so index·64 + level is unique. */
function keyNumber(key: { level: number; index: number }): number {
  return key.index * 64 + key.level;
}

export function createLogTreeReader(
  store: Pick<ReceiptLogStore, 'readTiles'>,
  tenantId: string,
): LogTreeReader {
  const tiles = new RecentlyUsed<number, Buffer[]>(MAX_CACHED_TILES);
  const nodes = new RecentlyUsed<number, Buffer>(MAX_CACHED_NODES);
  const lookup = (node: NodeKey): Buffer | undefined => {
    const key = keyNumber(node);
    let hash = nodes.get(key);
    if (!hash) {
      const levels = tiles.get(keyNumber(tileOfNode(node).tile));
      hash = levels && nodeHashFromLevels(levels, node);
      if (hash) nodes.set(key, hash);
    }
    return hash;
  };
  // After the tiles are read, a node they do not hold is a broken log: say which node.
  const read: NodeReader = (node) => {
    const hash = lookup(node);
    if (!hash) throw new Error(`the log has no tile data for node ${node.level}/${node.index}`);
    return hash;
  };
  const readCached: NodeReader = (node) => {
    const hash = lookup(node);
    if (!hash) throw NOT_CACHED;
    return hash;
  };
  const computeCached = <T>(fn: (read: NodeReader) => T): T | undefined => {
    try {
      return fn(readCached);
    } catch (error) {
      if (error === NOT_CACHED) return undefined;
      throw error;
    }
  };
  return {
    computeCached,
    async compute(fn) {
      const cached = computeCached(fn);
      if (cached !== undefined) return cached;
      const missing = missingTiles(nodesNeeded(fn), tiles);
      if (missing.length > 0) {
        for (const t of await store.readTiles(tenantId, missing))
          tiles.set(keyNumber(t), tileLevels(t.hashes));
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
function missingTiles(needed: NodeKey[], tiles: RecentlyUsed<number, Buffer[]>): TileKey[] {
  const out = new Map<number, TileKey>();
  for (const node of needed) {
    const { tile } = tileOfNode(node);
    const key = keyNumber(tile);
    const levels = tiles.get(key);
    if (!levels || !nodeHashFromLevels(levels, node)) out.set(key, tile);
  }
  return [...out.values()];
}
