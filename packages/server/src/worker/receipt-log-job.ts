import type { Deps } from '../domain/deps.js';
import { createRightEdgeCache, integrateReceiptLog } from '../domain/receipt-log/integrate-receipt-log.js';
import { loadLogSigner, type LogSigner } from '../domain/receipt-log/log-signer.js';
import type { Metrics } from '../observability/create-metrics.js';
import type { Job } from './run-jobs.js';

export interface ReceiptLogJobOptions {
  /** How often pending receipts are integrated and a checkpoint signed (PRESENCE_LOG_CHECKPOINT_INTERVAL_MS). */
  intervalMs: number;
  /** Leaves per checkpoint at most; a backlog is worked off in consecutive batches. */
  maxLeaves?: number;
  /** Tenants served per batch. */
  maxTenants?: number;
  /**
   * A grown log waits until its last checkpoint is this old (ms), unless it is more than
   * `maxLeaves` behind; 9/10 of `intervalMs` by default. Tests that integrate on demand pass 0.
   */
  minCheckpointAgeMs?: number;
  /**
   * Checkpoints this process signs a second at most, over all its tenants
   * (PRESENCE_LOG_MAX_CHECKPOINTS_PER_SECOND): the log's share of a process's CPU stays bounded
   * however many tenants verify at once. When more logs are due than that, the logs checkpointed
   * longest ago go first, so every tenant's cadence stretches alike. Unbounded when absent.
   */
  maxCheckpointsPerSecond?: number;
  /**
   * How long a run's lease on the logs it takes lasts (ms; PostgreSQL, claimDueLogs): four
   * intervals by default, far longer than a run takes. A checkpoint ends it; a lease a process
   * left behind (it stopped mid-run) holds that log back from the others for this long at most.
   */
  leaseMs?: number;
  /** Checkpoints signed and lost (presence_receipt_log_checkpoints_total). */
  metrics?: Pick<Metrics, 'receiptLogCheckpoints'> | undefined;
}

/**
 * Integrates new receipts into each tenant's log and signs a checkpoint whenever a log grew: off
 * the verify path, every `intervalMs`, right away again while a backlog remains. Safe with any
 * number of processes: the append is a compare-and-set on the tree size. Each tenant's checkpoints
 * are spaced by the age of its last one, which every process reads: so N processes sign about as
 * many checkpoints as one (one per tenant per interval while its log grows), not N times as many.
 * A run leases the logs it takes (claimDueLogs), so the processes share the due logs instead of
 * racing for the same ones. Each process also keeps to its own budget of checkpoints a second.
 */
export function createReceiptLogJob(
  deps: Pick<Deps, 'store' | 'clock' | 'secrets' | 'logOrigin'>,
  options: ReceiptLogJobOptions,
): Job {
  let signer: LogSigner | undefined;
  const maxLeaves = options.maxLeaves ?? 10_000;
  const edges = createRightEdgeCache(deps.clock);
  // Below the interval, so a single process, which runs an interval after its last run ended,
  // always finds its own last checkpoint due.
  const minAgeMs = options.minCheckpointAgeMs ?? Math.floor(0.9 * options.intervalMs);
  const leaseMs = options.leaseMs ?? 4 * options.intervalMs;
  const budget =
    options.maxCheckpointsPerSecond === undefined
      ? undefined
      : checkpointBudget(options.maxCheckpointsPerSecond, options.intervalMs, () => deps.clock.now());
  return {
    name: 'receipt-log',
    intervalMs: options.intervalMs,
    async run() {
      const allowed = Math.min(options.maxTenants ?? 100, budget?.available() ?? Infinity);
      // Nothing left of the budget: the next run, an interval later, finds it refilled.
      if (allowed < 1) return false;
      const now = deps.clock.now();
      const pending = await deps.store.receiptLogTree.claimDueLogs(
        allowed,
        { checkpointedBy: now - minAgeMs, backlog: maxLeaves },
        { now, until: now + leaseMs },
      );
      if (pending.length === 0) return false;
      signer ??= await loadLogSigner(deps);
      let more = pending.length === allowed;
      for (const p of pending) {
        const outcome = await integrateReceiptLog(deps, signer, p.tenantId, { maxLeaves, edges });
        if (outcome !== undefined)
          options.metrics?.receiptLogCheckpoints.inc({ outcome: outcome === 'lost' ? 'lost' : 'signed' });
        budget?.spend();
        if (p.lastSeq - p.treeSize > maxLeaves) more = true;
      }
      return more && (budget?.available() ?? 1) >= 1;
    },
  };
}

/**
 * A token bucket on the service's clock: `perSecond` checkpoints a second, saved up to one
 * interval's worth (at least one), so a job that runs once an interval can spend it in one run.
 */
function checkpointBudget(perSecond: number, intervalMs: number, now: () => number) {
  const capacity = Math.max(1, (perSecond * intervalMs) / 1000);
  let tokens = capacity;
  let at = now();
  return {
    /** Whole checkpoints that may be signed now. */
    available(): number {
      const t = now();
      tokens = Math.min(capacity, tokens + (Math.max(0, t - at) * perSecond) / 1000);
      at = t;
      return Math.floor(tokens);
    },
    spend(): void {
      tokens -= 1;
    },
  };
}
