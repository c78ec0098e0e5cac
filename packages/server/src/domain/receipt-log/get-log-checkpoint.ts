import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { LogCheckpointRecord } from './ports.js';

/** The tenant's newest signed checkpoint, followed by the witness cosignature lines stored for it. */
export async function getLogCheckpoint(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
): Promise<LogCheckpointRecord> {
  const latest = await deps.store.receiptLogTree.latestCheckpoint(tenantId);
  if (!latest) {
    throw new DomainError(
      'not_found',
      'the receipt log of this tenant is empty: its first checkpoint is signed once a receipt is integrated',
    );
  }
  return withCosignatures(deps, latest);
}

/** A checkpoint's note with every stored cosignature line appended (C2SP signed-note allows many). */
export async function withCosignatures(
  deps: Pick<Deps, 'store'>,
  checkpoint: LogCheckpointRecord,
): Promise<LogCheckpointRecord> {
  const lines = await deps.store.receiptLogTree.cosignatures(checkpoint.tenantId, checkpoint.treeSize);
  return { ...checkpoint, note: checkpoint.note + lines.map((l) => l.line).join('') };
}
