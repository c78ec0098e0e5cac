import type { ReceiptLogStore, TileKey } from './ports.js';
import { nodesNeeded, type NodeReader } from './merkle-proofs.js';
import { nodeHashFromTile, tileId, tileOfNode, type NodeKey } from './tile-math.js';

/** Tiles kept between calls of one reader (an export reads thousands of neighbouring proofs). */
const MAX_CACHED_TILES = 256;

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
  const tiles = new Map<string, Buffer>();
  const nodes = new Map<string, Buffer>();
  const remember = (key: string, data: Buffer) => {
    tiles.delete(key);
    tiles.set(key, data);
    if (tiles.size > MAX_CACHED_TILES) tiles.delete(tiles.keys().next().value!);
  };
  const read: NodeReader = (node) => {
    const key = `${node.level}/${node.index}`;
    let hash = nodes.get(key);
    if (!hash) {
      hash = nodeHashFromTile(tiles, node);
      nodes.set(key, hash);
      if (nodes.size > 8 * MAX_CACHED_TILES) nodes.delete(nodes.keys().next().value!);
    }
    return hash;
  };
  return {
    async compute(fn) {
      const missing = missingTiles(nodesNeeded(fn), tiles, remember);
      if (missing.length > 0) {
        for (const t of await store.readTiles(tenantId, missing)) remember(tileId(t), t.hashes);
      }
      return fn(read);
    },
  };
}

/**
 * The tiles a computation still needs. The ones already cached are marked as just used, so the
 * tiles read next evict older ones, never a tile this computation relies on (a walk over the
 * leaves keeps reading new level-0 tiles while the upper-level tiles it also needs stay put).
 * Nodes already in the node cache count too: the computation itself can evict them from it, and
 * then reads them from their tile.
 */
function missingTiles(
  needed: NodeKey[],
  tiles: Map<string, Buffer>,
  touch: (key: string, data: Buffer) => void,
): TileKey[] {
  const out = new Map<string, TileKey>();
  for (const node of needed) {
    const { tile, first, count } = tileOfNode(node);
    const key = tileId(tile);
    const have = tiles.get(key);
    if (!have || have.length < (first + count) * 32) out.set(key, tile);
    else touch(key, have);
  }
  return [...out.values()];
}
