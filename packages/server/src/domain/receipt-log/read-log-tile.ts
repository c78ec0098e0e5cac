import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { TILE_WIDTH } from './tile-math.js';

export interface TileRequest {
  /** A tree-tile level, or 'entries' for an entry bundle (leaf data: 32-byte receipt hashes). */
  level: number | 'entries';
  index: number;
  /** For a partial tile: how many hashes (entries) of it, 1–255. */
  width?: number | undefined;
}

/**
 * Parses a C2SP tlog-tiles path below `tile/`: `<L>/<N>[.p/<W>]`, N in groups of three digits,
 * all but the last prefixed `x` (1234067 → `x001/x234/067`).
 */
export function parseTilePath(path: string): TileRequest {
  const match = /^(entries|[0-9]|[1-5][0-9]|6[0-3])\/((?:x[0-9]{3}\/)*[0-9]{3})(?:\.p\/([0-9]{1,3}))?$/.exec(
    path,
  );
  if (!match) throw new DomainError('not_found', 'not a tlog-tiles path: tile/<L>/<N>[.p/<W>]');
  const index = Number(match[2]!.replaceAll('x', '').replaceAll('/', ''));
  const width = match[3] === undefined ? undefined : Number(match[3]);
  if (!Number.isSafeInteger(index) || (width !== undefined && (width < 1 || width >= TILE_WIDTH))) {
    throw new DomainError('not_found', 'the tile index or width is out of range');
  }
  return { level: match[1] === 'entries' ? 'entries' : Number(match[1]), index, width };
}

/** The bytes of one tile (or entry bundle), as static-tile mirrors and monitors fetch them. */
export async function readLogTile(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  request: TileRequest,
): Promise<Buffer> {
  const width = request.width ?? TILE_WIDTH;
  const log = deps.store.receiptLogTree;
  if (request.level === 'entries') {
    const size = await log.treeSize(tenantId);
    if (request.index * TILE_WIDTH + width > size) throw notFound('that entry bundle');
    const rows = await log.receiptHashes(tenantId, request.index * TILE_WIDTH, width);
    if (rows.length !== width) throw notFound('that entry bundle');
    return Buffer.concat(rows.map((r) => Buffer.concat([Buffer.of(0, 32), Buffer.from(r.hashHex, 'hex')])));
  }
  const [tile] = await log.readTiles(tenantId, [{ level: request.level, index: request.index }]);
  if (!tile || tile.hashes.length < width * 32) throw notFound('that tile');
  if (request.width === undefined && tile.hashes.length !== TILE_WIDTH * 32) throw notFound('that full tile');
  return tile.hashes.subarray(0, width * 32);
}
