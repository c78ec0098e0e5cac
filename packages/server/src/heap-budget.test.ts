import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it, vi } from 'vitest';
import { collectFullGarbage, createHeapBudget } from './heap-budget.js';

const MB = 1024 * 1024;

/** A budget over a pretend old generation whose size the test sets. */
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
  return { heap, collections, budget };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('heap budget', () => {
  it('asks for no collection while the old generation grows less than the budget', () => {
    const { heap, collections, budget } = scripted();
    budget.afterPage();
    heap.used += 16 * MB;
    budget.afterPage();
    expect(collections).toHaveLength(0);
  });

  it('asks for one collection past the budget, none while it runs, and counts again from after it', async () => {
    const { heap, collections, budget } = scripted();
    budget.afterPage();
    heap.used += 17 * MB;
    budget.afterPage();
    heap.used += 5 * MB;
    budget.afterPage();
    expect(collections).toHaveLength(1);

    heap.used = 45 * MB; // what the collection left
    collections[0]!.resolve();
    await settle();
    heap.used += 10 * MB;
    budget.afterPage();
    expect(collections).toHaveLength(1);
    heap.used += 7 * MB;
    budget.afterPage();
    expect(collections).toHaveLength(2);
  });

  it("counts from V8's own full collections: a drop in usage becomes the new starting point", () => {
    const { heap, collections, budget } = scripted();
    budget.afterPage();
    heap.used += 12 * MB;
    budget.afterPage();
    heap.used = 38 * MB; // V8 collected by itself
    budget.afterPage();
    heap.used += 15 * MB;
    budget.afterPage();
    expect(collections).toHaveLength(0);
  });

  it('stops asking once a collection fails, and never throws into the export', async () => {
    const { heap, collections, budget } = scripted();
    budget.afterPage();
    heap.used += 20 * MB;
    budget.afterPage();
    collections[0]!.reject(new Error('ERR_CONTEXT_NOT_INITIALIZED'));
    await settle();
    heap.used += 40 * MB;
    expect(() => budget.afterPage()).not.toThrow();
    expect(collections).toHaveLength(1);

    const throwing = createHeapBudget({
      growthBytes: MB,
      collectable: () => heap.used,
      collect: () => {
        throw new TypeError('measureMemory is not a function');
      },
    });
    throwing.afterPage();
    heap.used += 2 * MB;
    expect(() => throwing.afterPage()).not.toThrow();
  });

  it('never asks when turned off (growth 0)', () => {
    let collections = 0;
    let used = 40 * MB;
    const off = createHeapBudget({
      growthBytes: 0,
      collectable: () => used,
      collect: async () => void (collections += 1),
    });
    off.afterPage();
    used += 400 * MB;
    off.afterPage();
    expect(collections).toBe(0);
  });

  it("frees V8's real old generation: garbage promoted there is gone after the collection it asks for", async () => {
    const oldSpace = () =>
      getHeapSpaceStatistics().find((s) => s.space_name === 'old_space')!.space_used_size;
    const started: Array<Promise<unknown>> = [];
    const budget = createHeapBudget({
      growthBytes: 8 * MB,
      collect: () => {
        const collection = collectFullGarbage();
        started.push(collection);
        return collection;
      },
    });
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
    const started: Array<Promise<unknown>> = [];
    const budget = createHeapBudget({
      growthBytes: 8 * MB,
      collect: () => {
        const collection = collectFullGarbage();
        started.push(collection);
        return collection;
      },
    });
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
