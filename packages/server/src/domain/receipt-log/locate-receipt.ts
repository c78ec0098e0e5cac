import type { ReceiptLogEntry } from '@presence/contract';
import type { Deps } from '../deps.js';
import { withCosignatures } from './get-log-checkpoint.js';
import { inclusionPath } from './merkle-proofs.js';
import { createLogTreeReader } from './read-log-tree.js';

/**
 * Where the receipt of `seq` sits in the log: its leaf index (seq − 1) and an inclusion proof
 * against the newest checkpoint; undefined until a checkpoint covers it (integration runs about
 * once a second, off the verify path).
 */
export async function locateReceipt(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  seq: number,
): Promise<ReceiptLogEntry | undefined> {
  const latest = await deps.store.receiptLogTree.latestCheckpoint(tenantId);
  if (!latest || seq > latest.treeSize) return undefined;
  const leafIndex = seq - 1;
  const reader = createLogTreeReader(deps.store.receiptLogTree, tenantId);
  const proof = await reader.compute((read) => inclusionPath(read, leafIndex, latest.treeSize));
  const checkpoint = await withCosignatures(deps, latest);
  return {
    leafIndex,
    treeSize: latest.treeSize,
    inclusionProof: proof.map((h) => h.toString('base64')),
    checkpoint: checkpoint.note,
  };
}
