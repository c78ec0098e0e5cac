/**
 * How often a tenant's log gets a checkpoint, whatever the number of processes (docs/adr/0009):
 * every process's receipt-log job reads the age of the tenant's last checkpoint, so a second
 * process finds a grown log not yet due and leaves it, unless it is more than `maxLeaves` behind.
 * On PostgreSQL a run leases the logs it takes, so two processes running at once share the due
 * logs instead of racing for them. Both databases; two jobs over one store stand for two processes.
 */
import { Counter } from 'prom-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addReceipts, seedTenant, TestRecords } from '../src/storage/test-records.js';
import { createReceiptLogJob } from '../src/worker/receipt-log-job.js';
import { describeEachDialect } from './support/each-dialect.js';
import { seedReceipts } from './support/seed-receipts.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { startTestService, type TestService } from './support/test-service.js';

// Long enough that the test's own running time never makes a checkpoint due.
const INTERVAL_MS = 60_000;

describeEachDialect('receipt log: checkpoint cadence across processes', (dialect) => {
  let s: TestService;
  let alice: SoftAuthenticator;
  let issued = 0;
  beforeAll(async () => {
    s = await startTestService(dialect);
    ({ authenticator: alice } = await s.enroll('alice'));
  });
  afterAll(async () => s?.close());

  const seed = async (count: number) => {
    const base = Date.now() + 600_000 + issued;
    issued += count;
    await seedReceipts(s.composed.deps, s.tenantId, alice, count, { issuedAt: (i) => base + i });
  };
  const checkpointed = async () =>
    (await s.composed.deps.store.receiptLogTree.latestCheckpoint(s.tenantId))?.treeSize;

  it('signs one checkpoint per interval for two processes, as for one', async () => {
    const first = createReceiptLogJob(s.composed.deps, { intervalMs: INTERVAL_MS });
    const second = createReceiptLogJob(s.composed.deps, { intervalMs: INTERVAL_MS });
    await seed(3);
    // A log with no checkpoint yet is due at once.
    expect(await first.run()).toBe(false);
    expect(await checkpointed()).toBe(3);

    await seed(2);
    // The second process runs right after: the log grew, but its checkpoint is fresh.
    expect(await second.run()).toBe(false);
    expect(await first.run()).toBe(false);
    expect(await checkpointed()).toBe(3);
    s.clock.advance((0.5 * INTERVAL_MS) / 1000);
    expect(await second.run()).toBe(false);
    expect(await checkpointed()).toBe(3);
    // Nine tenths of an interval after the last checkpoint it is due, for whichever runs first.
    s.clock.advance((0.4 * INTERVAL_MS) / 1000);
    expect(await second.run()).toBe(false);
    expect(await checkpointed()).toBe(5);
    expect(await first.run()).toBe(false);
    expect(await checkpointed()).toBe(5);
  });

  it('does not wait while a log is more than maxLeaves behind', async () => {
    const job = createReceiptLogJob(s.composed.deps, { intervalMs: INTERVAL_MS, maxLeaves: 2 });
    s.clock.advance(INTERVAL_MS / 1000);
    await seed(6); // 11 receipts, 5 integrated
    // Due by age: 2 leaves, and more remain.
    expect(await job.run()).toBe(true);
    expect(await checkpointed()).toBe(7);
    // Its checkpoint is fresh, but it is still 4 behind: 2 more at once.
    expect(await job.run()).toBe(true);
    expect(await checkpointed()).toBe(9);
    // 2 behind is not more than maxLeaves: it waits for the interval.
    expect(await job.run()).toBe(false);
    expect(await checkpointed()).toBe(9);
    s.clock.advance(INTERVAL_MS / 1000);
    expect(await job.run()).toBe(false);
    expect(await checkpointed()).toBe(11);
  });

  it('keeps to its budget of checkpoints a second, the logs checkpointed longest ago first', async () => {
    const { store } = s.composed.deps;
    const records = new TestRecords();
    type Tenant = { id: string; policyId: string };
    const tenants: Tenant[] = [];
    for (let i = 0; i < 5; i++) {
      const { tenant, policy } = await seedTenant(store, records);
      tenants.push({ id: tenant.id, policyId: policy.id });
    }
    tenants.sort((x, y) => (x.id < y.id ? -1 : 1));
    const [a, b, c, d, e] = tenants as [Tenant, Tenant, Tenant, Tenant, Tenant];
    const grow = (some: typeof tenants) =>
      Promise.all(some.map((t) => addReceipts(store, records, t.id, t.policyId, 1)));
    const sizes = () => Promise.all(tenants.map(async (t) => store.receiptLogTree.treeSize(t.id)));
    // 4 a second over an interval of 500 ms: at most 2 in one run.
    const job = createReceiptLogJob(s.composed.deps, {
      intervalMs: 500,
      maxCheckpointsPerSecond: 4,
      minCheckpointAgeMs: 0,
    });
    /** Runs the job `seconds` after the last run; it never asks to run again at once. */
    const runAfter = async (seconds: number, expected: number[]) => {
      s.clock.advance(seconds);
      expect(await job.run()).toBe(false);
      expect(await sizes()).toEqual(expected);
    };
    // The last two by id get their first checkpoints first; the others after them.
    await grow([d, e]);
    await runAfter(0, [0, 0, 0, 1, 1]);
    await grow([a, b, c]);
    // The budget is spent: nothing more until it refills, at 4 a second.
    await runAfter(0, [0, 0, 0, 1, 1]);
    await runAfter(0.25, [1, 0, 0, 1, 1]);
    await runAfter(1, [1, 1, 1, 1, 1]);
    // All five grow again. Never more than one interval's worth at once, however long it waited;
    // the oldest checkpoints go first (d and e), not the first ids.
    await grow(tenants);
    await runAfter(10, [1, 1, 1, 2, 2]);
    // a was checkpointed a second before b and c (above); b and c tie, and go by id.
    await runAfter(0.25, [2, 1, 1, 2, 2]);
    await runAfter(0.25, [2, 2, 1, 2, 2]);
    await runAfter(0.25, [2, 2, 2, 2, 2]);
    // With budget left over, a run that filled its batch asks to run again at once.
    const oneAtATime = createReceiptLogJob(s.composed.deps, {
      intervalMs: 500,
      maxCheckpointsPerSecond: 4,
      minCheckpointAgeMs: 0,
      maxTenants: 1,
    });
    await grow([a, b, c]);
    expect(await oneAtATime.run()).toBe(true);
    expect(await oneAtATime.run()).toBe(false);
    expect(await sizes()).toEqual([3, 3, 2, 2, 2]);
  });

  // SQLite leases nothing (one process owns the database): two jobs at once there race for the
  // same logs, and the compare-and-set alone keeps the log right (receipt-log-integration.test.ts).
  it.skipIf(dialect === 'sqlite')(
    'shares the due logs between two processes running at once: no work repeated, none lost',
    async () => {
      const { store } = s.composed.deps;
      // The earlier tests' logs, brought up to date first.
      await createReceiptLogJob(s.composed.deps, { intervalMs: INTERVAL_MS, minCheckpointAgeMs: 0 }).run();
      const records = new TestRecords();
      const tenants = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const { tenant, policy } = await seedTenant(store, records);
          await addReceipts(store, records, tenant.id, policy.id, 3);
          return { id: tenant.id, policyId: policy.id };
        }),
      );
      // By id: a run checkpoints its logs in that order, so the first is the oldest checkpoint below.
      tenants.sort((x, y) => (x.id < y.id ? -1 : 1));
      const sizes = () => Promise.all(tenants.map(async (t) => store.receiptLogTree.treeSize(t.id)));
      const checkpoints = new Counter({
        name: 'checkpoints',
        help: 'by outcome',
        labelNames: ['outcome'],
        registers: [],
      });
      const outcomes = async () =>
        Object.fromEntries((await checkpoints.get()).values.map((v) => [v.labels.outcome, v.value]));
      const job = () =>
        createReceiptLogJob(s.composed.deps, {
          intervalMs: INTERVAL_MS,
          minCheckpointAgeMs: 0,
          metrics: { receiptLogCheckpoints: checkpoints },
        });
      const [first, second] = [job(), job()];
      await Promise.all([first.run(), second.run()]);
      expect(await sizes()).toEqual(tenants.map(() => 3));
      expect(await outcomes()).toEqual({ signed: 8 });

      // A process that took a lease and stopped before its checkpoint (a crash) holds that log
      // back from the others until the lease runs out (four intervals by default), no longer.
      const [stalled, ...others] = tenants;
      await Promise.all(tenants.map((t) => addReceipts(store, records, t.id, t.policyId, 1)));
      const now = s.clock.now();
      const taken = await store.receiptLogTree.claimDueLogs(
        1,
        { checkpointedBy: now, backlog: 10_000 },
        { now, until: now + 4 * INTERVAL_MS },
      );
      expect(taken.map((t) => t.tenantId)).toEqual([stalled!.id]);
      await first.run();
      expect(await sizes()).toEqual([3, ...others.map(() => 4)]);
      // (The test clock is real time plus an offset: a second's margin for the test's own time.)
      s.clock.advance((4 * INTERVAL_MS) / 1000 - 1);
      await second.run();
      expect(await store.receiptLogTree.treeSize(stalled!.id)).toBe(3);
      s.clock.advance(1);
      await second.run();
      expect(await sizes()).toEqual(tenants.map(() => 4));
      expect(await outcomes()).toEqual({ signed: 16 });
    },
  );
});
