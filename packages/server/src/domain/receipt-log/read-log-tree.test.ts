import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inclusionPath } from './merkle-proofs.js';
import type { StoredTile, TileKey } from './ports.js';
import { createLogTreeReader } from './read-log-tree.js';
import { TILE_WIDTH, nodeHashFromLevels, nodeHashFromTile, tileId, tileLevels } from './tile-math.js';

/** Every tile of a tree of `size` leaves, filled with arbitrary hashes (only lengths matter here). */
function fakeTiles(size: number): Map<string, Buffer> {
  const tiles = new Map<string, Buffer>();
  for (let level = 0, count = size; count > 0; level += 1, count = Math.floor(count / TILE_WIDTH)) {
    for (let index = 0; index * TILE_WIDTH < count; index += 1) {
      const width = Math.min(TILE_WIDTH, count - index * TILE_WIDTH);
      tiles.set(tileId({ level, index }), randomBytes(width * 32));
    }
  }
  return tiles;
}

describe('createLogTreeReader', () => {
  it('keeps the tiles a proof needs while a walk over many leaves fills its cache', async () => {
    // More than 256 level-0 tiles: the upper-level tiles read at the start must not be evicted.
    const size = 300 * TILE_WIDTH + 17;
    // Every leaf in order, as an export walks them: the node cache also turns over many times.
    const tiles = fakeTiles(size);
    let tilesRead = 0;
    const store = {
      readTiles: async (_tenant: string, keys: readonly TileKey[]): Promise<StoredTile[]> => {
        tilesRead += keys.length;
        return keys.map((k) => ({ ...k, hashes: tiles.get(tileId(k))! }));
      },
    };
    const walking = createLogTreeReader(store, 'ten_1');
    // The oracle computes every node from its tile on the spot, with no cache at all.
    const direct = (node: { level: number; index: number }) => nodeHashFromTile(tiles, node);
    for (let leaf = 0; leaf < size; leaf += 1) {
      const proof = await walking.compute((read) => inclusionPath(read, leaf, size));
      if (leaf % 97 === 0 || leaf === size - 1) expect(proof).toEqual(inclusionPath(direct, leaf, size));
    }
    // The cache works: the walk reads each tile about once, not per proof.
    expect(tilesRead).toBeLessThan(2 * tiles.size);
  });
});

describe('tileLevels', () => {
  it('yields every node of a tile, full or partial, as computing it on the spot does', () => {
    for (const width of [1, 2, 3, 7, 8, 100, 255, 256]) {
      for (const tileLevel of [0, 1]) {
        const tileIndex = 3;
        const hashes = randomBytes(width * 32);
        const tiles = new Map([[tileId({ level: tileLevel, index: tileIndex }), hashes]]);
        const levels = tileLevels(hashes);
        for (let height = 0; height < 8; height += 1) {
          const span = 2 ** height;
          const level = tileLevel * 8 + height;
          const firstIndex = (tileIndex * TILE_WIDTH) / span;
          for (let i = 0; i < TILE_WIDTH / span; i += 1) {
            const node = { level, index: firstIndex + i };
            const held = (i + 1) * span <= width;
            expect(nodeHashFromLevels(levels, node)).toEqual(
              held ? nodeHashFromTile(tiles, node) : undefined,
            );
          }
        }
      }
    }
  });
});

describe('LogTreeReader.computeCached', () => {
  it('answers from cached tiles only, and declines when a tile is missing or too short', async () => {
    const size = 3 * TILE_WIDTH + 40;
    const tiles = fakeTiles(size);
    // The first reads see the log at 20 leaves: its level-0 tile 0 holds only 20 hashes.
    let visibleLeaves = 20;
    const store = {
      readTiles: async (_tenant: string, keys: readonly TileKey[]): Promise<StoredTile[]> =>
        keys.map((k) => {
          const full = tiles.get(tileId(k))!;
          const hashes =
            k.level === 0 && k.index === 0
              ? full.subarray(0, Math.min(full.length, visibleLeaves * 32))
              : full;
          return { ...k, hashes };
        }),
    };
    const reader = createLogTreeReader(store, 'ten_1');
    expect(reader.computeCached((read) => inclusionPath(read, 3, 20))).toBeUndefined();
    const first = await reader.compute((read) => inclusionPath(read, 3, 20));
    // Everything that proof needed is cached now: a neighbour answers without a read.
    const neighbour = reader.computeCached((read) => inclusionPath(read, 2, 20));
    expect(neighbour).toEqual(
      await createLogTreeReader(store, 'ten_1').compute((read) => inclusionPath(read, 2, 20)),
    );
    expect(first).not.toEqual(neighbour);
    // A larger tree needs hashes past the cached tile's end: declined, then read again.
    visibleLeaves = size;
    expect(reader.computeCached((read) => inclusionPath(read, 30, size))).toBeUndefined();
    const later = await reader.compute((read) => inclusionPath(read, 30, size));
    expect(later).toEqual(
      await createLogTreeReader(store, 'ten_1').compute((read) => inclusionPath(read, 30, size)),
    );
  });

  it('lets errors other than a missing tile through', () => {
    const reader = createLogTreeReader({ readTiles: async () => [] }, 'ten_1');
    expect(() =>
      reader.computeCached(() => {
        throw new RangeError('not about tiles');
      }),
    ).toThrow(RangeError);
  });
});
