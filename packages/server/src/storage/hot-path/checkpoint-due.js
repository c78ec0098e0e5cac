// @ts-check
/**
 * The state the SQLite checkpoint thread shares with the threads that commit (sqlite-checkpointer.ts,
 * sqlite-checkpoint-thread.js, sqlite-writer-thread.js): two slots of shared memory, one that says a
 * checkpoint is due and one that says the store is closing. Plain JavaScript, so that the worker
 * threads load it without a compiler.
 */

/** The slot a commit sets: a checkpoint is due. */
export const DUE = 0;
/** The slot the store sets when it closes: the thread ends. */
export const CLOSING = 1;

/** A new state: nothing due, not closing. */
export function newCheckpointState() {
  return new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
}

/**
 * After a commit: marks a checkpoint as due, and wakes the thread only when it was not due
 * already, so a commit pays one atomic operation.
 * @param {Int32Array} state
 */
export function markDue(state) {
  if (Atomics.compareExchange(state, DUE, 0, 1) === 0) Atomics.notify(state, DUE);
}
