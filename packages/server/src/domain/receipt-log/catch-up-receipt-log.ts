import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { integrateReceiptLog } from './integrate-receipt-log.js';
import { loadLogSigner } from './log-signer.js';

/**
 * Makes sure the tenant's log covers seq `upTo`, integrating now if the worker has not yet (an
 * export must not wait for the next tick). Concurrent integrators are harmless: each round
 * re-reads the size.
 */
export async function catchUpReceiptLog(
  deps: Pick<Deps, 'store' | 'clock' | 'secrets' | 'logOrigin'>,
  tenantId: string,
  upTo: number,
): Promise<void> {
  for (let round = 0; round < 100; round++) {
    if ((await deps.store.receiptLogTree.treeSize(tenantId)) >= upTo) return;
    await integrateReceiptLog(deps, await loadLogSigner(deps), tenantId, { maxLeaves: 10_000 });
  }
  throw new DomainError('service_unavailable', 'the receipt log is still catching up; retry shortly', [], {
    retryAfterSeconds: 5,
  });
}
