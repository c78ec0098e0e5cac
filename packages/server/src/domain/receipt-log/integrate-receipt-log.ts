import { formatCheckpointBody, receiptLeafHash } from '@presence/sdk/node';
import type { Deps } from '../deps.js';
import type { LogSigner } from './log-signer.js';
import { logOrigin } from './log-signer.js';
import { treeRoot } from './merkle-proofs.js';
import { createLogTreeReader } from './read-log-tree.js';
import { appendToTiles, rightEdgeTiles, tileId } from './tile-math.js';

export interface IntegrateOptions {
  /** Leaves appended per checkpoint at most. */
  maxLeaves: number;
}

type IntegrateDeps = Pick<Deps, 'store' | 'clock' | 'logOrigin'>;

/**
 * Appends a tenant's receipts beyond its integrated size to its tree (seq n → leaf n − 1) and
 * signs a checkpoint of the new size. Reads and hashing happen outside the transaction; the
 * write is a compare-and-set on the size, so concurrent integrators never append twice.
 * Returns the new size, or undefined when there was nothing to do or another process won.
 */
export async function integrateReceiptLog(
  deps: IntegrateDeps,
  signer: LogSigner,
  tenantId: string,
  options: IntegrateOptions,
): Promise<number | undefined> {
  const log = deps.store.receiptLogTree;
  const fromSize = await log.treeSize(tenantId);
  const rows = await log.receiptHashes(tenantId, fromSize, options.maxLeaves);
  if (rows.length === 0) return undefined;
  rows.forEach((row, i) => {
    if (row.seq !== fromSize + i + 1)
      throw new Error(`receipt seq ${fromSize + i + 1} of ${tenantId} is missing`);
  });
  const edgeKeys = rightEdgeTiles(fromSize);
  const edge = new Map((await log.readTiles(tenantId, edgeKeys)).map((t) => [tileId(t), t.hashes]));
  const tiles = appendToTiles(
    fromSize,
    edge,
    rows.map((r) => receiptLeafHash(r.hashHex)),
  );
  const size = fromSize + rows.length;
  const written = new Map(tiles.map((t) => [tileId(t), t.hashes]));
  // The root is computed over the tiles just built, falling back to stored ones below them.
  const reader = createLogTreeReader(
    {
      async readTiles(_tenant, keys) {
        const stored = keys.filter((k) => !written.has(tileId(k)));
        const fresh = tiles.filter((t) => keys.some((k) => tileId(k) === tileId(t)));
        return [...fresh, ...(await log.readTiles(tenantId, stored))];
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
  return won ? size : undefined;
}
