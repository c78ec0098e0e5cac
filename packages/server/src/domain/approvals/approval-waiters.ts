/**
 * Long polls of approvals (`GET /v1/approvals/{id}?waitSeconds=N`) in this process. A decision or
 * status change made in this process wakes its waiters at once; a change made by another instance
 * is seen by the waiter's own short database poll (get-approval.ts), so nothing here needs to
 * cross processes. Memory is bounded: one entry per waiting request, removed when it returns, and
 * at most MAX_WAITERS at once (beyond that a wait returns at once, like waitSeconds=0).
 */

/** The most long polls one process holds at a time. */
export const MAX_WAITERS = 10_000;

export interface ApprovalWaiters {
  /** Resolves true when `approvalId` is signalled, false after `ms` or when full. */
  wait(approvalId: string, ms: number): Promise<boolean>;
  /** Wakes every waiter of `approvalId`. */
  signal(approvalId: string): void;
}

export function createApprovalWaiters(limit = MAX_WAITERS): ApprovalWaiters {
  const waiting = new Map<string, Set<(woken: boolean) => void>>();
  let count = 0;
  return {
    wait(approvalId, ms) {
      if (count >= limit || ms <= 0) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const set = waiting.get(approvalId) ?? new Set();
        waiting.set(approvalId, set);
        count++;
        const done = (woken: boolean) => {
          clearTimeout(timer);
          if (set.delete(done)) count--;
          if (set.size === 0 && waiting.get(approvalId) === set) waiting.delete(approvalId);
          resolve(woken);
        };
        const timer = setTimeout(() => done(false), ms);
        set.add(done);
      });
    },
    signal(approvalId) {
      const set = waiting.get(approvalId);
      if (!set) return;
      for (const done of [...set]) done(true);
    },
  };
}
