import type { Deps } from '../deps.js';

/**
 * Seconds since the oldest receipt that no checkpoint covers yet was issued, over every tenant;
 * 0 when the log is caught up. One indexed query: cheap enough for a metrics scrape
 * (`presence_receipt_log_integration_lag_seconds`).
 */
export async function receiptLogIntegrationLagSeconds(deps: Pick<Deps, 'store' | 'clock'>): Promise<number> {
  const oldest = await deps.store.receiptLogTree.oldestUnintegratedAt();
  return oldest === null ? 0 : Math.max(0, (deps.clock.now() - oldest) / 1000);
}
