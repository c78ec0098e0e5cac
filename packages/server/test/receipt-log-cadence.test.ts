/**
 * How often a tenant's log gets a checkpoint, whatever the number of processes (docs/adr/0009):
 * every process's receipt-log job reads the age of the tenant's last checkpoint, so a second
 * process finds a grown log not yet due and leaves it, unless it is more than `maxLeaves` behind.
 * Both databases; two jobs over one store stand for two processes.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
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
});
