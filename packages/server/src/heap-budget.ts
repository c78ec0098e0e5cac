/**
 * The export's heap budget (domain/exports/ports.ts HeapBudget): when the memory that only a full
 * garbage collection frees has grown GROWTH_BYTES since the lowest point seen, ask V8 for one now.
 * That memory is V8's old space plus the array buffers' backing stores, which live outside the
 * V8 heap (in the C heap) but are freed only with the JavaScript object that owns them.
 *
 * Why: an export promotes short-lived objects (pages, log tiles, 64 KiB zip chunks caught alive by
 * a young collection). V8 lets the old generation grow to about twice the live heap the server
 * started with before it collects it, and the chunks' backing stores wait with it. A PostgreSQL
 * export of a million receipts peaked 60–70 MB above idle that way; some SQLite exports, whose
 * chunks were promoted faster, 90–110 MB (docs/performance-history.md, "Issue 10, fifth pass"; ADR 0014).
 *
 * The collection is started with `vm.measureMemory({ execution: 'eager' })`, the one Node API
 * that starts a full collection without `--expose-gc`. Node marks it experimental and prints one
 * ExperimentalWarning per process on its first use. If it is missing or fails, the budget stops
 * asking, and exports go on as before, without the bound.
 */
import { getHeapSpaceStatistics } from 'node:v8';
import { measureMemory } from 'node:vm';
import type { HeapBudget } from './domain/exports/ports.js';

/** Growth that asks for a collection: 16 MiB (PRESENCE_EXPORT_HEAP_GROWTH_MB). */
export const GROWTH_BYTES = 16 * 1024 * 1024;

export interface HeapBudgetOptions {
  /** Default GROWTH_BYTES; 0 turns the budget off. */
  growthBytes?: number;
  /** Bytes that only a full collection frees, now. */
  collectable?: () => number;
  /** Starts a full collection; settles when it is done. */
  collect?: () => Promise<unknown>;
}

export function createHeapBudget(options: HeapBudgetOptions = {}): HeapBudget {
  const growthBytes = options.growthBytes ?? GROWTH_BYTES;
  const collectable = options.collectable ?? oldSpaceAndArrayBuffers;
  const collect = options.collect ?? collectFullGarbage;
  let lowest: number | undefined;
  let collecting = false;
  let stopped = growthBytes === 0;
  const restart = () => {
    collecting = false;
    lowest = collectable();
  };
  const stop = () => {
    stopped = true;
    restart();
  };
  return {
    afterPage() {
      if (collecting || stopped) return;
      const now = collectable();
      // V8's own collections lower the figure: growth counts from the lowest point seen.
      if (lowest === undefined || now < lowest) lowest = now;
      if (now - lowest <= growthBytes) return;
      collecting = true;
      try {
        collect().then(restart, stop);
      } catch {
        stop();
      }
    },
  };
}

/** ≈ 12 µs: cheap next to a page of 200 receipts. */
function oldSpaceAndArrayBuffers(): number {
  const oldSpace = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
  return (oldSpace?.space_used_size ?? 0) + process.memoryUsage().arrayBuffers;
}

/** A full collection, started now; measuring is only the documented way to start it. */
export function collectFullGarbage(): Promise<unknown> {
  return measureMemory({ mode: 'summary', execution: 'eager' });
}
