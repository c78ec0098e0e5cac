import { hashChildren } from '@presence/sdk/node';
import type { StoredTile, TileKey } from './ports.js';

/**
 * C2SP tlog-tiles geometry: tiles of height 8 (256 hashes). Tile (L, N) holds the hashes of tree
 * level 8·L, nodes 256·N … 256·N + 255. A node at tree level h is the root of the 2^(h − 8·L)
 * consecutive level-8·L hashes below it, all inside one tile, so any node costs one tile read.
 */
export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 256;
const HASH = 32;

export interface NodeKey {
  /** Tree level: 0 for leaf hashes. */
  level: number;
  index: number;
}

export function tileId(t: TileKey): string {
  return `${t.level}/${t.index}`;
}

/** The tile holding what node (level, index) is computed from, and the slice of it used. */
export function tileOfNode(node: NodeKey): { tile: TileKey; first: number; count: number } {
  const tileLevel = Math.floor(node.level / TILE_HEIGHT);
  const span = 2 ** (node.level - tileLevel * TILE_HEIGHT);
  const start = node.index * span;
  return {
    tile: { level: tileLevel, index: Math.floor(start / TILE_WIDTH) },
    first: start % TILE_WIDTH,
    count: span,
  };
}

/**
 * The hash of node (level, index) from its tile, computed from the tile's hashes on the spot;
 * throws when the tile does not hold it yet. (A reader that serves many proofs keeps
 * `tileLevels` of each tile instead; the tests hold the two to the same answers.)
 */
export function nodeHashFromTile(tiles: { get(id: string): Buffer | undefined }, node: NodeKey): Buffer {
  const { tile, first, count } = tileOfNode(node);
  const data = tiles.get(tileId(tile));
  if (!data || data.length < (first + count) * HASH) {
    throw new Error(`the log has no tile data for node ${node.level}/${node.index}`);
  }
  let level: Buffer[] = [];
  for (let i = 0; i < count; i += 1) level.push(data.subarray((first + i) * HASH, (first + i + 1) * HASH));
  while (level.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(hashChildren(level[i]!, level[i + 1]!));
    level = up;
  }
  return Buffer.from(level[0]!);
}

/**
 * Every node hash a tile yields, level by level: entry h holds, in order, the hashes of the
 * tile's complete blocks of 2^h (entry 0 is the tile itself), up to the tile's top node. A tile of
 * n hashes costs n − 1 hashes once, where computing each node on demand costs a hash per tree
 * level per proof: an export walking every leaf reads each node a few times.
 */
export function tileLevels(hashes: Buffer): Buffer[] {
  const levels = [hashes];
  for (let below = hashes; below.length >= 2 * HASH;) {
    const pairs = Math.floor(below.length / (2 * HASH));
    const up = Buffer.allocUnsafe(pairs * HASH);
    for (let i = 0; i < pairs; i += 1) {
      hashChildren(
        below.subarray(2 * i * HASH, (2 * i + 1) * HASH),
        below.subarray((2 * i + 1) * HASH, (2 * i + 2) * HASH),
      ).copy(up, i * HASH);
    }
    levels.push(up);
    below = up;
  }
  return levels;
}

/** Node (level, index) from its tile's `tileLevels`, or undefined when the tile does not hold it. */
export function nodeHashFromLevels(levels: readonly Buffer[], node: NodeKey): Buffer | undefined {
  const height = node.level % TILE_HEIGHT;
  const within = node.index % 2 ** (TILE_HEIGHT - height);
  const data = levels[height];
  if (!data || data.length < (within + 1) * HASH) return undefined;
  return data.subarray(within * HASH, (within + 1) * HASH);
}

/**
 * The compact range of a tree of `size` leaves (the SDK's appendToCompactRange), read from its
 * right-edge tiles: each of its subtrees is a node of a tile that is not yet full, so
 * rightEdgeTiles(size) hold them all.
 */
export function compactRangeFromTiles(
  size: number,
  tiles: { get(id: string): Buffer | undefined },
): Buffer[] {
  const range: Buffer[] = [];
  let covered = 0;
  for (let level = Math.floor(Math.log2(Math.max(size, 1))) + 1; level >= 0; level -= 1) {
    const span = 2 ** level;
    if (size - covered >= span) {
      range.push(nodeHashFromTile(tiles, { level, index: covered / span }));
      covered += span;
    }
  }
  return range;
}

/** The right-edge tile of every level for a tree of `size` leaves: what appending must extend. */
export function rightEdgeTiles(size: number): TileKey[] {
  const out: TileKey[] = [];
  for (let level = 0, count = size; count > 0; level += 1, count = Math.floor(count / TILE_WIDTH)) {
    if (count % TILE_WIDTH !== 0) out.push({ level, index: Math.floor(count / TILE_WIDTH) });
  }
  return out;
}

/**
 * Appends leaf hashes to a tree of `size` leaves. `edge` holds the existing right-edge tiles
 * (rightEdgeTiles(size)); returns every tile that changed or was created, whole.
 */
export function appendToTiles(
  size: number,
  edge: ReadonlyMap<string, Buffer>,
  leafHashes: readonly Buffer[],
): StoredTile[] {
  const changed: StoredTile[] = [];
  let level = 0;
  let count = size;
  let incoming = leafHashes;
  while (incoming.length > 0) {
    const { tiles, completed } = appendLevel(level, count, edge, incoming);
    changed.push(...tiles);
    count = Math.floor(count / TILE_WIDTH);
    incoming = completed;
    level += 1;
  }
  return changed;
}

/** Appends hashes to tile level `level` that holds `count` hashes; returns tiles and roots of newly full tiles. */
function appendLevel(
  level: number,
  count: number,
  edge: ReadonlyMap<string, Buffer>,
  hashes: readonly Buffer[],
): { tiles: StoredTile[]; completed: Buffer[] } {
  const tiles: StoredTile[] = [];
  const completed: Buffer[] = [];
  let index = Math.floor(count / TILE_WIDTH);
  let current: Buffer[] = splitHashes(edge.get(tileId({ level, index })), count % TILE_WIDTH);
  const flush = () => tiles.push({ level, index, hashes: Buffer.concat(current) });
  for (const h of hashes) {
    current.push(h);
    if (current.length === TILE_WIDTH) {
      flush();
      completed.push(rootOfFullTile(current));
      index += 1;
      current = [];
    }
  }
  if (current.length > 0) flush();
  return { tiles, completed };
}

function splitHashes(data: Buffer | undefined, width: number): Buffer[] {
  if (width === 0) return [];
  if (!data || data.length < width * HASH)
    throw new Error('a right-edge tile of the log is missing or short');
  const out: Buffer[] = [];
  for (let i = 0; i < width; i += 1) out.push(data.subarray(i * HASH, (i + 1) * HASH));
  return out;
}

function rootOfFullTile(hashes: readonly Buffer[]): Buffer {
  let level = [...hashes];
  while (level.length > 1) {
    const up: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) up.push(hashChildren(level[i]!, level[i + 1]!));
    level = up;
  }
  return level[0]!;
}
