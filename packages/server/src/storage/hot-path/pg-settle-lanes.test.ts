/**
 * The batching rules of pg-settle-lanes.ts, over a recording stand-in for the statement (the
 * statement itself is covered on PostgreSQL by store-presence-hot-path.behaviour.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { SettleOutcome, VerifiedSettlement } from '../../domain/presence/ports.js';
import { createPgSettleLanes, PG_SETTLE_MAX_MEMBERS } from './pg-settle-lanes.js';
import type { PgVerifiedMember } from './presence-hot-path.js';

let n = 0;
function settlement(tenantId: string, o: { credential?: string; challenge?: string; at?: number } = {}) {
  n++;
  return {
    credentialUse: { id: o.credential ?? `cred_${n}`, expectedSignCount: 0, signCount: 1, backedUp: false },
    receipt: { tenantId, challengeId: o.challenge ?? `chl_${n}` },
    usage: { occurredAt: o.at ?? 0 },
  } as unknown as VerifiedSettlement;
}

/** A statement that answers only when told to, recording each batch as challenge ids. */
function recorder() {
  const batches: {
    ids: string[];
    answer: (outcomes?: SettleOutcome[]) => void;
    fail: (e: unknown) => void;
  }[] = [];
  const sizes: number[] = [];
  const lanes = createPgSettleLanes(
    (members: readonly PgVerifiedMember[]) =>
      new Promise<SettleOutcome[]>((resolve, reject) => {
        batches.push({
          ids: members.map((m) => m.settlement.receipt.challengeId),
          answer: (outcomes) => resolve(outcomes ?? members.map((_, i) => ({ kind: 'settled', seq: i + 1 }))),
          fail: reject,
        });
      }),
    (members) => sizes.push(members),
  );
  return { lanes, batches, sizes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('PostgreSQL settle lanes', () => {
  it('sends an idle tenant’s settle at once, alone, and what arrives meanwhile together next', async () => {
    const { lanes, batches, sizes } = recorder();
    const first = lanes.settle(settlement('t1', { challenge: 'a' }));
    expect(batches.map((b) => b.ids)).toEqual([['a']]);
    const rest = ['b', 'c', 'd'].map((challenge) => lanes.settle(settlement('t1', { challenge })));
    await tick();
    expect(batches).toHaveLength(1);
    batches[0]!.answer();
    expect(await first).toEqual({ kind: 'settled', seq: 1 });
    await tick();
    expect(batches.map((b) => b.ids)).toEqual([['a'], ['b', 'c', 'd']]);
    expect(sizes).toEqual([1, 3]);
    batches[1]!.answer([{ kind: 'settled', seq: 2 }, { kind: 'counter-moved' }, { kind: 'already-decided' }]);
    expect(await Promise.all(rest)).toEqual([
      { kind: 'settled', seq: 2 },
      { kind: 'counter-moved' },
      { kind: 'already-decided' },
    ]);
  });

  it('gives each tenant a lane of its own', async () => {
    const { lanes, batches } = recorder();
    void lanes.settle(settlement('t1', { challenge: 'a' }));
    void lanes.settle(settlement('t2', { challenge: 'b' }));
    expect(batches.map((b) => b.ids)).toEqual([['a'], ['b']]);
  });

  it('keeps a repeated credential or challenge for the following batch, in arrival order', async () => {
    const { lanes, batches } = recorder();
    void lanes.settle(settlement('t1', { challenge: 'a' }));
    void lanes.settle(settlement('t1', { challenge: 'b', credential: 'k' }));
    void lanes.settle(settlement('t1', { challenge: 'c', credential: 'k' }));
    void lanes.settle(settlement('t1', { challenge: 'b' }));
    void lanes.settle(settlement('t1', { challenge: 'd' }));
    batches[0]!.answer();
    await tick();
    batches[1]!.answer();
    await tick();
    expect(batches.map((b) => b.ids)).toEqual([['a'], ['b', 'd'], ['c', 'b']]);
  });

  it(`sends at most ${PG_SETTLE_MAX_MEMBERS} members in one batch`, async () => {
    const { lanes, batches } = recorder();
    void lanes.settle(settlement('t1'));
    for (let i = 0; i < PG_SETTLE_MAX_MEMBERS + 5; i++) void lanes.settle(settlement('t1'));
    batches[0]!.answer();
    await tick();
    batches[1]!.answer();
    await tick();
    expect(batches.map((b) => b.ids.length)).toEqual([1, PG_SETTLE_MAX_MEMBERS, 5]);
  });

  it('runs the members of a batch refused for a sealed month again one by one', async () => {
    const { lanes, batches, sizes } = recorder();
    void lanes.settle(settlement('t1', { challenge: 'a' }));
    const b = lanes.settle(settlement('t1', { challenge: 'b', at: 1 }));
    const c = lanes.settle(settlement('t1', { challenge: 'c', at: 2 }));
    batches[0]!.answer();
    await tick();
    batches[1]!.fail(new BillingPeriodClosed(1));
    await tick();
    expect(batches.map((x) => x.ids)).toEqual([['a'], ['b', 'c'], ['b']]);
    batches[2]!.fail(new BillingPeriodClosed(1));
    await expect(b).rejects.toBeInstanceOf(BillingPeriodClosed);
    await tick();
    expect(batches[3]!.ids).toEqual(['c']);
    batches[3]!.answer();
    expect(await c).toEqual({ kind: 'settled', seq: 1 });
    // Every statement's batch, the reruns one by one included.
    expect(sizes).toEqual([1, 2, 1, 1]);
  });

  it('fails every member of a batch that failed otherwise, and goes on with the next', async () => {
    const { lanes, batches } = recorder();
    const a = lanes.settle(settlement('t1', { challenge: 'a' }));
    const b = lanes.settle(settlement('t1', { challenge: 'b' }));
    const c = lanes.settle(settlement('t1', { challenge: 'c' }));
    const outage = new Error('connection lost');
    batches[0]!.fail(outage);
    await expect(a).rejects.toBe(outage);
    await tick();
    batches[1]!.fail(outage);
    await expect(Promise.allSettled([b, c])).resolves.toEqual([
      { status: 'rejected', reason: outage },
      { status: 'rejected', reason: outage },
    ]);
    const d = lanes.settle(settlement('t1', { challenge: 'd' }));
    expect(batches.map((x) => x.ids)).toEqual([['a'], ['b', 'c'], ['d']]);
    batches[2]!.answer();
    expect(await d).toEqual({ kind: 'settled', seq: 1 });
  });
});
