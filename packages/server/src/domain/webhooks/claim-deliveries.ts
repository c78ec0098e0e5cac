import type { Deps } from '../deps.js';
import type { StoreTx } from '../ports.js';
import type { ClaimedDelivery, WebhookDeliveryRecord } from './ports.js';
import { nextRetryDelay } from './retry-schedule.js';

export interface ClaimOptions {
  /** Free delivery slots in this process. */
  limit: number;
  /** Attempts in flight per endpoint, across every process: one slow receiver cannot take all slots. */
  perEndpoint: number;
  /** How long a claim holds a delivery; a worker that dies leaves it due again after this. */
  leaseMs: number;
}

const ROUNDS = 4;
const INTERRUPTED =
  'interrupted: no outcome was recorded before the lease expired (the worker stopped mid-attempt)';

/**
 * Leases due deliveries in one short transaction: SELECT … FOR UPDATE SKIP LOCKED on PostgreSQL
 * (so several processes never claim the same row), BEGIN IMMEDIATE on SQLite. Claims of all
 * processes take turns (they last milliseconds), so the per-endpoint limit holds across processes
 * too; attempts themselves run outside any transaction. Endpoints at their
 * in-flight limit are skipped, and the query repeats without them, so a backlog for one endpoint
 * does not hide the others. A delivery whose earlier lease expired is logged as an interrupted
 * attempt and rescheduled first.
 */
export async function claimDeliveries(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  options: ClaimOptions,
): Promise<{ token: string; claimed: ClaimedDelivery[] }> {
  const token = deps.random.bytes(16).toString('hex');
  if (options.limit <= 0 || !(await deps.store.webhooks.deliveries.hasDue(deps.clock.now()))) {
    return { token, claimed: [] };
  }
  const claimed = await deps.store.transaction(async (tx) => {
    await tx.webhooks.deliveries.lockClaims();
    const now = deps.clock.now();
    const picked = await pickDue(deps, tx, options, now);
    await tx.webhooks.deliveries.lease(picked, token, now, now + options.leaseMs);
    return tx.webhooks.deliveries.loadClaimed(picked);
  });
  return { token, claimed };
}

async function pickDue(
  deps: Pick<Deps, 'random'>,
  tx: StoreTx,
  options: ClaimOptions,
  now: number,
): Promise<string[]> {
  const inFlight = await tx.webhooks.deliveries.inFlightByEndpoint(now);
  const saturated = () => [...inFlight].filter(([, n]) => n >= options.perEndpoint).map(([id]) => id);
  const picked: string[] = [];
  const seen = new Set<string>();
  for (let round = 0; round < ROUNDS && picked.length < options.limit; round++) {
    const window = options.limit * 2;
    const due = await tx.webhooks.deliveries.lockDue(now, saturated(), window);
    const candidates = due.filter((d) => !seen.has(d.id));
    for (const d of candidates) {
      seen.add(d.id);
      if (d.leaseToken !== null) {
        await recordInterrupted(deps, tx, d, now);
        continue;
      }
      const count = inFlight.get(d.endpointId) ?? 0;
      if (count >= options.perEndpoint || picked.length >= options.limit) continue;
      inFlight.set(d.endpointId, count + 1);
      picked.push(d.id);
    }
    if (due.length < window || candidates.length === 0) break; // every due row was seen
  }
  return picked;
}

/** The lost attempt counts as a failure without a response; it is due again at once if the schedule allows. */
async function recordInterrupted(
  deps: Pick<Deps, 'random'>,
  tx: StoreTx,
  d: WebhookDeliveryRecord,
  now: number,
): Promise<void> {
  const startedAt = d.leasedAt ?? now;
  await tx.webhooks.deliveries.insertAttempt({
    deliveryId: d.id,
    attempt: d.attemptCount,
    startedAt,
    durationMs: Math.max(0, now - startedAt),
    statusCode: null,
    error: INTERRUPTED,
    responseSnippet: null,
  });
  const more = nextRetryDelay(d.retryCount, deps.random, null) !== null;
  await tx.webhooks.deliveries.complete(d.id, d.leaseToken!, {
    status: more ? 'pending' : 'failed',
    nextAttemptAt: more ? now : null,
    retryCount: d.retryCount + 1,
    lastStatusCode: null,
    lastError: INTERRUPTED,
    firstSucceededAt: d.firstSucceededAt,
    completedAt: more ? null : now,
    updatedAt: now,
  });
}
