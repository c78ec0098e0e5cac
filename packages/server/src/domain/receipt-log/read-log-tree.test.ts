import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { inclusionPath } from './merkle-proofs.js';
import type { StoredTile, TileKey } from './ports.js';
import { createLogTreeReader } from './read-log-tree.js';
import { TILE_WIDTH, tileId } from './tile-math.js';

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
    for (let leaf = 0; leaf < size; leaf += 1) {
      const proof = await walking.compute((read) => inclusionPath(read, leaf, size));
      if (leaf % 1000 !== 0 && leaf !== size - 1) continue;
      const fresh = await createLogTreeReader(store, 'ten_1').compute((read) =>
        inclusionPath(read, leaf, size),
      );
      expect(proof).toEqual(fresh);
    }
    // The cache works: the walk (fresh readers aside) reads each tile about once, not per proof.
    const freshReads = Math.ceil(size / 1000) + 1;
    expect(tilesRead).toBeLessThan(2 * tiles.size + freshReads * 4);
  });
});
