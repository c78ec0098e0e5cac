import type { Deps } from '../deps.js';
import type { RetentionCutoffs } from './ports.js';
import type { RetentionSettings } from './retention-settings.js';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface PruneResult {
  /** Rows deleted per table in this pass. */
  deleted: Record<string, number>;
  /** True when some table filled its batch: there may be more to prune right away. */
  more: boolean;
}

export function retentionCutoffs(now: number, settings: RetentionSettings): RetentionCutoffs {
  const before = (days: number) => (days === 0 ? undefined : now - days * DAY_MS);
  return {
    now,
    eventsBefore: before(settings.eventsDays),
    deliveriesBefore: before(settings.deliveriesDays),
    challengesBefore: before(settings.challengesDays),
    approvalsBefore: before(settings.approvalsDays),
  };
}

/**
 * One pass of retention: at most one batch per table, each its own short statement, so pruning
 * never holds locks the request path waits on for long. Receipts, the receipt log, exports,
 * credentials, approved approvals and approval sets, usage and invoices are never pruned.
 */
export async function pruneExpiredRows(
  deps: Pick<Deps, 'store' | 'clock'>,
  settings: RetentionSettings,
): Promise<PruneResult> {
  const cutoffs = retentionCutoffs(deps.clock.now(), settings);
  const deleted: Record<string, number> = {};
  let more = false;
  for (const target of deps.store.retention.targets) {
    const count = await deps.store.retention.pruneBatch(target, cutoffs, settings.batchSize);
    deleted[target] = count;
    if (count >= settings.batchSize) more = true;
  }
  return { deleted, more };
}
