import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { catchUpReceiptLog } from '../receipt-log/catch-up-receipt-log.js';
import { withCosignatures } from '../receipt-log/get-log-checkpoint.js';
import { consistencyPath, inclusionPath, type NodeReader } from '../receipt-log/merkle-proofs.js';
import type { LogCheckpointRecord } from '../receipt-log/ports.js';
import { createLogTreeReader } from '../receipt-log/read-log-tree.js';
import { PackChunks, pagedFile, type ReceiptPagesFile } from './pack-pages.js';

type LogFileDeps = Pick<Deps, 'store' | 'clock' | 'secrets' | 'logOrigin'>;

export interface PackLog {
  /** The checkpoint every inclusion proof of the pack is against, with its cosignatures. */
  checkpoint: LogCheckpointRecord;
  /** RFC 9162 consistency proof from `logSince` (or the pack's own size) to the checkpoint. */
  consistency: { from: number; to: number; hashes: string[] };
}

/**
 * Picks the pack's checkpoint: one covering every receipt the export can hold (seq ≤ snapshot),
 * integrating first if needed. When the tenant requires N witnesses, the newest checkpoint with
 * N cosignatures of its trusted witnesses, or a 409 naming what is missing.
 */
export async function choosePackLog(
  deps: LogFileDeps,
  tenantId: string,
  snapshotSeq: number,
  logSince: number | undefined,
): Promise<PackLog | undefined> {
  if (snapshotSeq === 0) return undefined;
  await catchUpReceiptLog(deps, tenantId, snapshotSeq);
  const log = deps.store.receiptLogTree;
  const settings = await log.witnessSettings(tenantId);
  const chosen =
    settings && settings.required > 0
      ? await log.witnessedCheckpoint(tenantId, snapshotSeq, settings.witnessKeys, settings.required)
      : await log.latestCheckpoint(tenantId);
  if (!chosen) {
    throw new DomainError(
      'conflict',
      `no checkpoint covering this export carries the ${settings?.required ?? 0} witness cosignatures this tenant requires yet; run the witnesses and retry`,
    );
  }
  const from = logSince ?? chosen.treeSize;
  if (from > chosen.treeSize) {
    throw new DomainError(
      'invalid_request',
      `logSince ${from} is beyond the log's ${chosen.treeSize} leaves`,
      [{ field: 'logSince', message: `at most ${chosen.treeSize}` }],
    );
  }
  const reader = createLogTreeReader(log, tenantId);
  const hashes = await reader.compute((read) => consistencyPath(read, from, chosen.treeSize));
  return {
    checkpoint: await withCosignatures(deps, chosen),
    consistency: { from, to: chosen.treeSize, hashes: hashes.map((h) => h.toString('base64')) },
  };
}

/**
 * log/inclusion.ndjson: for every receipt of receipts.ndjson, in the same order, its leaf index
 * and inclusion proof against the pack's checkpoint. Walks the receipts again by seq (the window
 * is fixed), reading tiles through one cache, so memory stays flat and neighbouring proofs are cheap.
 */
export const writeInclusionLines: ReceiptPagesFile = (deps, state, signal, pageSize) => {
  const tenantId = state.record.tenantId;
  const reader = createLogTreeReader(deps.store.receiptLogTree, tenantId);
  // A pack without a log (an empty tenant) has no inclusion lines: no start, no pages.
  const treeSize = state.log?.checkpoint.treeSize ?? 0;
  const start = state.log ? state.start : undefined;
  const walk = { filter: state.filter, start, signal, pageSize, heapBudget: deps.heapBudget };
  return pagedFile(walk, async (filter, position) => {
    const page = await deps.store.receiptLog.listLeaves(tenantId, filter, position, pageSize);
    const out = new PackChunks();
    for (const entry of page) {
      const path = (read: NodeReader) => inclusionPath(read, entry.seq - 1, treeSize);
      // Neighbouring proofs share their tiles: only about one in 256 waits for a tile read.
      const hashes = reader.computeCached(path) ?? (await reader.compute(path));
      out.write('{"hashes":[');
      hashes.forEach((h, i) =>
        out.write(i === 0 ? `"${h.toString('base64')}"` : `,"${h.toString('base64')}"`),
      );
      out.write(`],"leafIndex":${entry.seq - 1},"receiptId":"${entry.receiptId}"}\n`);
    }
    return { chunks: out.finish(), rows: page.length, lastSeq: page.at(-1)?.seq };
  });
};
