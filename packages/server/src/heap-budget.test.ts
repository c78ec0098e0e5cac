import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import { collectFullGarbage, createHeapBudget } from './heap-budget.js';

const MB = 1024 * 1024;

/** A budget over a pretend heap: `pageAt(mb)` sets its size, then ends a page. */
function scripted(growthBytes = 16 * MB) {
  const heap = { used: 40 * MB };
  const collections: Array<{ resolve: () => void; reject: (e: Error) => void }> = [];
  const budget = createHeapBudget({
    growthBytes,
    collectable: () => heap.used,
    collect: () =>
      new Promise<void>((resolve, reject) => {
        collections.push({ resolve, reject });
      }),
  });
  const pageAt = (mb: number) => {
    heap.used = mb * MB;
    budget.afterPage();
  };
  return { collections, pageAt };
}

/** The real budget (V8's figures, a real collection) at 8 MiB, keeping each collection it starts. */
function realBudget() {
  const started: Array<Promise<unknown>> = [];
  const budget = createHeapBudget({
    growthBytes: 8 * MB,
    collect: () => {
      const collection = collectFullGarbage();
      started.push(collection);
      return collection;
    },
  });
  return { budget, started };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('heap budget', () => {
  it('asks for no collection while the old generation grows less than the budget', () => {
    const { collections, pageAt } = scripted();
    pageAt(40);
    pageAt(56);
    expect(collections).toHaveLength(0);
  });

  it('asks for one collection past the budget, none while it runs, and counts again from after it', async () => {
    const { collections, pageAt } = scripted();
    pageAt(40);
    pageAt(57);
    pageAt(62);
    expect(collections).toHaveLength(1);

    collections[0]!.resolve();
    pageAt(45); // what the collection left
    await settle();
    pageAt(55);
    expect(collections).toHaveLength(1);
    pageAt(62);
    expect(collections).toHaveLength(2);
  });

  it("counts from V8's own full collections: a drop in usage becomes the new starting point", () => {
    const { collections, pageAt } = scripted();
    pageAt(40);
    pageAt(52);
    pageAt(38); // V8 collected by itself
    pageAt(53);
    expect(collections).toHaveLength(0);
  });

  it('stops asking once a collection fails, and never throws into the export', async () => {
    const { collections, pageAt } = scripted();
    pageAt(40);
    pageAt(60);
    collections[0]!.reject(new Error('ERR_CONTEXT_NOT_INITIALIZED'));
    await settle();
    expect(() => pageAt(100)).not.toThrow();
    expect(collections).toHaveLength(1);

    let used = 40 * MB;
    let attempts = 0;
    const throwing = createHeapBudget({
      growthBytes: MB,
      collectable: () => used,
      collect: () => {
        attempts += 1;
        throw new TypeError('measureMemory is not a function');
      },
    });
    throwing.afterPage();
    used += 2 * MB;
    expect(() => throwing.afterPage()).not.toThrow();
    used += 2 * MB;
    throwing.afterPage();
    expect(attempts).toBe(1);
  });

  it('never asks when turned off (growth 0)', () => {
    const { collections, pageAt } = scripted(0);
    pageAt(40);
    pageAt(440);
    expect(collections).toHaveLength(0);
  });

  it("frees V8's real old generation: garbage promoted there is gone after the collection it asks for", async () => {
    const oldSpace = () =>
      getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
    const { budget, started } = realBudget();
    budget.afterPage();
    // About 40 MB of small objects, kept across young collections so that they are promoted.
    let kept: Array<{ index: number; text: string }> | undefined = [];
    for (let i = 0; i < 600_000; i++) {
      kept.push({ index: i, text: `entry ${i}` });
      if (i % 100_000 === 0) await settle();
    }
    await settle();
    expect(kept).toHaveLength(600_000);
    kept = undefined;
    const before = oldSpace();
    budget.afterPage();
    expect(started).toHaveLength(1);
    await started[0];
    expect(before - oldSpace()).toBeGreaterThan(16 * MB);
  });

  it('counts the backing stores of array buffers, which V8 frees only with their old objects', async () => {
    const { budget, started } = realBudget();
    budget.afterPage();
    // 32 chunks of 1 MiB outside the V8 heap, kept while young collections promote their owners.
    let kept: Buffer[] | undefined = Array.from({ length: 32 }, () => Buffer.alloc(MB, 1));
    let churn: unknown;
    for (let i = 0; i < 2_000_000; i++) churn = { i };
    await settle();
    expect([churn, kept.length]).toEqual([{ i: 1_999_999 }, 32]);
    kept = undefined;
    const before = process.memoryUsage().arrayBuffers;
    budget.afterPage();
    expect(started).toHaveLength(1);
    await started[0];
    // V8 releases backing stores on a background sweeper, shortly after the collection ends.
    await vi.waitFor(() => expect(before - process.memoryUsage().arrayBuffers).toBeGreaterThan(24 * MB), {
      timeout: 5000,
    });
  });
});
