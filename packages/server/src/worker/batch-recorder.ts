import type { Deps } from '../domain/deps.js';
import {
  recordAttempts,
  type AttemptOutcome,
  type FinishedAttempt,
} from '../domain/webhooks/attempt-delivery.js';

const MAX_BATCH = 100;

/**
 * Group commit for attempt outcomes: attempts that finish while a write is running are recorded
 * together in the next transaction, so a burst of deliveries costs a few durable commits, not one
 * each. `record` resolves once the attempt's outcome is written (or its batch failed: the lease
 * then expires and the delivery is attempted again — at least once, never lost).
 */
export function createBatchRecorder(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  onOutcome: (attempt: FinishedAttempt, outcome: AttemptOutcome) => void,
  onError: (error: unknown, batch: readonly FinishedAttempt[]) => void,
): (attempt: FinishedAttempt) => Promise<void> {
  let queue: { attempt: FinishedAttempt; done: () => void }[] = [];
  let writing = false;
  const pump = async () => {
    writing = true;
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      const attempts = batch.map((b) => b.attempt);
      try {
        const outcomes = await recordAttempts(deps, attempts);
        outcomes.forEach((outcome, i) => onOutcome(attempts[i]!, outcome));
      } catch (error) {
        onError(error, attempts);
      }
      for (const b of batch) b.done();
    }
    writing = false;
  };
  return (attempt) =>
    new Promise<void>((resolve) => {
      queue.push({ attempt, done: resolve });
      if (!writing) void pump();
    });
}
