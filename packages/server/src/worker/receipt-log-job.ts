import type { Deps } from '../domain/deps.js';
import { integrateReceiptLog } from '../domain/receipt-log/integrate-receipt-log.js';
import { loadLogSigner, type LogSigner } from '../domain/receipt-log/log-signer.js';
import type { Job } from './run-jobs.js';

export interface ReceiptLogJobOptions {
  /** How often pending receipts are integrated and a checkpoint signed (PRESENCE_LOG_CHECKPOINT_INTERVAL_MS). */
  intervalMs: number;
  /** Leaves per checkpoint at most; a backlog is worked off in consecutive batches. */
  maxLeaves?: number;
  /** Tenants served per batch. */
  maxTenants?: number;
}

/**
 * Integrates new receipts into each tenant's log and signs a checkpoint whenever a log grew: off
 * the verify path, every `intervalMs`, right away again while a backlog remains. Safe with any
 * number of processes: the append is a compare-and-set on the tree size.
 */
export function createReceiptLogJob(
  deps: Pick<Deps, 'store' | 'clock' | 'secrets' | 'logOrigin'>,
  options: ReceiptLogJobOptions,
): Job {
  let signer: LogSigner | undefined;
  const maxLeaves = options.maxLeaves ?? 10_000;
  return {
    name: 'receipt-log',
    intervalMs: options.intervalMs,
    async run() {
      const pending = await deps.store.receiptLogTree.pendingTenants(options.maxTenants ?? 100);
      if (pending.length === 0) return false;
      signer ??= await loadLogSigner(deps);
      let more = pending.length === (options.maxTenants ?? 100);
      for (const p of pending) {
        await integrateReceiptLog(deps, signer, p.tenantId, { maxLeaves });
        if (p.lastSeq - p.treeSize > maxLeaves) more = true;
      }
      return more;
    },
  };
}
