/**
 * PostgreSQL: the verified settles of one tenant leave this process one batch at a time, each batch
 * ONE statement (statements.ts PG_SETTLE_VERIFIED; PG_SETTLE_ONE_VERIFIED for a batch of one),
 * committed on its own before any member is answered. While a tenant's batch is in flight, the tenant's next settles wait here and go
 * together in the next batch. So a busy tenant's verifications no longer queue inside PostgreSQL
 * on its per-tenant rows (receipt sequence, usage rollups) one statement at a time: they take those
 * rows once per batch, and share one commit (one WAL flush) and one round trip. An idle tenant's
 * settle leaves at once, alone.
 *
 * Each member keeps its own outcome (settled with its seq, counter-moved, already-decided), exactly
 * as when it ran alone. A batch holds each credential and each challenge at most once; a second
 * settle naming one waits for the next batch, where it finds the first's writes. When a batch
 * fails because a month is sealed, its members run again one by one, so each learns its own
 * outcome; any other failure fails every member of the batch, as it would have failed each alone.
 * Used by store.selfContainedWrites (the verify path); a settle inside store.transaction runs on
 * the transaction's connection as a batch of one. docs/adr/0016-postgres-settle-batches.md.
 */
import { AsyncResource } from 'node:async_hooks';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { SettleOutcome, VerifiedSettlement } from '../../domain/presence/ports.js';
import { currentTraceParent } from '../repos/outbox.js';
import type { PgVerifiedMember } from './presence-hot-path.js';

/** Members of one batch at most; a longer queue is served by the next batch. */
export const PG_SETTLE_MAX_MEMBERS = 64;

export interface PgSettleLanes {
  settle(s: VerifiedSettlement): Promise<SettleOutcome>;
}

type SettleMany = (members: readonly PgVerifiedMember[]) => Promise<SettleOutcome[]>;

interface Waiting extends PgVerifiedMember {
  resolve: (outcome: SettleOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * `onBatch` is told the size of each statement's batch as it leaves, a sealed month's reruns one
 * by one included (the metrics' histogram of batch sizes).
 */
export function createPgSettleLanes(
  settleMany: SettleMany,
  onBatch?: (members: number) => void,
): PgSettleLanes {
  /** Tenants with a batch in flight, and what waits for their next one; gone when idle. */
  const lanes = new Map<string, Waiting[]>();
  // A settle that finds its tenant idle runs in its own request's context (its statement's span
  // is that request's child). A batch formed while another was in flight serves several requests:
  // it runs in the context the store was opened in, never in whichever request came first.
  const home = new AsyncResource('presence.pg-settle-lanes');

  /** Runs a batch in the current context, then the tenant's next batch in the store's. */
  const send = (tenantId: string, batch: Waiting[]) => {
    void runBatch(batch).finally(() => home.runInAsyncScope(() => next(tenantId)));
  };

  const next = (tenantId: string) => {
    const queue = lanes.get(tenantId)!;
    if (queue.length === 0) lanes.delete(tenantId);
    else send(tenantId, takeBatch(queue));
  };

  const runBatch = async (batch: Waiting[]) => {
    onBatch?.(batch.length);
    let outcomes: SettleOutcome[];
    try {
      outcomes = await settleMany(batch);
    } catch (error) {
      if (!(error instanceof BillingPeriodClosed) || batch.length === 1) {
        for (const member of batch) member.reject(error);
        return;
      }
      // A sealed month: each member alone, so each learns whether its own month is the sealed one.
      for (const member of batch) await runBatch([member]);
      return;
    }
    batch.forEach((member, i) => member.resolve(outcomes[i]!));
  };

  return {
    settle(settlement) {
      return new Promise<SettleOutcome>((resolve, reject) => {
        const tenantId = settlement.receipt.tenantId;
        const member = { settlement, traceParent: currentTraceParent(), resolve, reject };
        const queue = lanes.get(tenantId);
        if (queue !== undefined) {
          queue.push(member);
          return;
        }
        lanes.set(tenantId, []);
        send(tenantId, [member]);
      });
    },
  };
}

/**
 * Takes the next batch from the front of a tenant's queue, keeping arrival order: at most
 * PG_SETTLE_MAX_MEMBERS, and no credential or challenge twice (a repeat stays queued).
 */
function takeBatch(queue: Waiting[]): Waiting[] {
  const batch: Waiting[] = [];
  const credentials = new Set<string>();
  const challenges = new Set<string>();
  let i = 0;
  while (i < queue.length && batch.length < PG_SETTLE_MAX_MEMBERS) {
    const member = queue[i]!;
    const { credentialUse, receipt } = member.settlement;
    if (credentials.has(credentialUse.id) || challenges.has(receipt.challengeId)) {
      i++;
      continue;
    }
    credentials.add(credentialUse.id);
    challenges.add(receipt.challengeId);
    batch.push(member);
    queue.splice(i, 1);
  }
  return batch;
}
