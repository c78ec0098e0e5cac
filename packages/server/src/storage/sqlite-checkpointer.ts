/**
 * The SQLite checkpoint thread, seen from the rest of the process (hot-path/sqlite-checkpoint-thread.js).
 * SQLite's automatic checkpoint runs inside the COMMIT that passes 1,000 WAL frames: under load
 * that is the writer thread's COMMIT, which then copies pages into the database file and syncs it
 * while every verification of its batch waits. Here the copy has a thread of its own: each commit
 * of this process marks a checkpoint as due (hot-path/checkpoint-due.js), and the thread runs a
 * PASSIVE checkpoint a short delay later. The connections keep their automatic checkpoint as a
 * backstop only, far above the default (CHECKPOINT_BACKSTOP_FRAMES): the WAL starts again from its
 * beginning only once every frame is copied, which under steady load is mostly the backstop's
 * work, and it bounds the WAL if the thread cannot keep up.
 * docs/adr/0017-sqlite-writer-thread.md#as-amended-since-issue-10.
 */
import { Worker } from 'node:worker_threads';
import { CLOSING, DUE, markDue, newCheckpointState } from './hot-path/checkpoint-due.js';

/**
 * Each connection of a file database checkpoints on its own only past this many WAL frames (4 KiB
 * each, so about 40 MiB of WAL); below it the checkpoint thread does the copying.
 */
export const CHECKPOINT_BACKSTOP_FRAMES = 10_000;

/** How long the thread lets commits gather after the first one marked a checkpoint as due. */
export const CHECKPOINT_DELAY_MS = 20;

/** A thread that stopped on its own is started again by a later mark, at most this often. */
const RESTART_AFTER_MS = 1000;

export interface SqliteCheckpointer {
  /**
   * The shared state, for a thread that commits (the writer thread gets it when it starts and
   * marks it with checkpoint-due.js `markDue`).
   */
  readonly state: Int32Array;
  /** Starts the checkpoint thread unless it runs (or the store is closing). */
  run(): void;
  /** After a commit on this thread: a checkpoint is due (and the thread runs). */
  due(): void;
  /** Stops the thread once the checkpoint it may be running has ended. */
  close(): Promise<void>;
  /** Whether a checkpoint thread runs now. */
  running(): boolean;
  /** Resolves once the thread started last has exited (at once when none was started). */
  stopped(): Promise<void>;
}

const THREAD = new URL('./hot-path/sqlite-checkpoint-thread.js', import.meta.url);

export function createSqliteCheckpointer(
  path: string,
  busyTimeoutMs: number,
  /** The clock of the restart rule (tests set it; the process uses Date.now). */
  now: () => number = Date.now,
): SqliteCheckpointer {
  const state = newCheckpointState();
  let worker: Worker | undefined;
  let startedAt = -Infinity;
  let stopped = Promise.resolve();

  const start = () => {
    startedAt = now();
    const started = new Worker(THREAD, {
      workerData: { path, busyTimeoutMs, state, delayMs: CHECKPOINT_DELAY_MS },
    });
    // It holds nothing a caller waits for, so it never keeps the process alive.
    started.unref();
    // A thread that failed (it could not open the file, say) is replaced by a later mark; until
    // then the backstop checkpoints.
    started.on('error', () => undefined);
    stopped = new Promise<void>((resolve) =>
      started.once('exit', () => {
        if (worker === started) worker = undefined;
        resolve();
      }),
    );
    return started;
  };

  const run = () => {
    if (Atomics.load(state, CLOSING) !== 0) return;
    if (worker === undefined && now() - startedAt >= RESTART_AFTER_MS) worker = start();
  };

  return {
    state,
    run,
    due() {
      run();
      markDue(state);
    },
    async close() {
      Atomics.store(state, CLOSING, 1);
      // Due too: a thread about to wait for a mark returns at once and sees that it is closing.
      Atomics.store(state, DUE, 1);
      Atomics.notify(state, DUE);
      Atomics.notify(state, CLOSING);
      // Waited for, it must keep the process alive until it has exited.
      worker?.ref();
      await stopped;
    },
    running: () => worker !== undefined,
    stopped: () => stopped,
  };
}
