// @ts-check
/**
 * The SQLite checkpoint thread (sqlite-checkpointer.ts starts it): copies what the process's
 * commits put in the WAL back into the database file, so that no COMMIT does it. Its own
 * connection runs a PASSIVE checkpoint, which never waits for the writer and never makes it wait.
 * The thread sleeps until a commit of this process marks a checkpoint as due, lets commits gather
 * for a short delay, clears the mark and checkpoints. A commit made while it checkpoints marks the
 * next one. Plain JavaScript, like the writer thread: worker threads load it without a compiler.
 *
 * The state is shared memory (checkpoint-due.js): a slot that says a checkpoint is due, and one
 * that says the store is closing. No message crosses threads.
 * A failed checkpoint changes nothing durable; the next mark tries again, and the connections'
 * own automatic checkpoint, set far higher than SQLite's default, still bounds the WAL
 * (docs/adr/0017-sqlite-writer-thread.md#as-amended-since-issue-10).
 */
import { workerData } from 'node:worker_threads';
import SqliteDatabase from '../sqlite-driver.js';
import { CLOSING, DUE } from './checkpoint-due.js';

const { path, busyTimeoutMs, state, delayMs } =
  /** @type {{ path: string, busyTimeoutMs: number, state: Int32Array, delayMs: number }} */ (workerData);

const database = new SqliteDatabase(path, { timeout: busyTimeoutMs });
// A checkpoint syncs the WAL before it copies and the database file after: nothing it writes is
// trusted before it is durable.
database.pragma('synchronous = FULL');
const checkpoint = database.prepare('pragma wal_checkpoint(PASSIVE)');

while (Atomics.load(state, CLOSING) === 0) {
  Atomics.wait(state, DUE, 0);
  if (Atomics.load(state, CLOSING) !== 0) break;
  // Commits that come during the delay join this checkpoint: a page they rewrite is copied once.
  Atomics.wait(state, CLOSING, 0, delayMs);
  if (Atomics.load(state, CLOSING) !== 0) break;
  Atomics.store(state, DUE, 0);
  try {
    checkpoint.get();
  } catch {
    // The WAL stays as it was and the next mark tries again. A cause that lasts (a full disk)
    // reaches the commits too, which answer 503.
  }
}
database.close();
