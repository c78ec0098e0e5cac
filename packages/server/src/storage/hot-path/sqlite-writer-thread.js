// @ts-check
/**
 * The SQLite writer thread (sqlite-writer.ts starts it): its own connection to the store's file,
 * with the main one's pragmas (WAL, synchronous=FULL, foreign keys, busy_timeout), plus its
 * savepoints' journal in memory (temp_store, below). The programs that arrive while it is busy
 * run together, each in its own savepoint, inside ONE
 * `BEGIN IMMEDIATE … COMMIT`, and their results go back only after that COMMIT returned: the
 * group commit of sqlite-group-commit.ts, with the fsync and the statements off the event loop
 * that serves HTTP. A program whose result says `undo`, or that threw, is rolled back to its
 * savepoint; if SQLite rolled the whole transaction back, or the COMMIT failed, every program of
 * the batch fails with that error. A read-only program (`read`) does not wait for a batch: it runs
 * as soon as it arrives, between two batches, on this connection's warm page cache.
 * docs/adr/0017-sqlite-writer-thread.md.
 */
import { setImmediate } from 'node:timers';
import { parentPort, workerData } from 'node:worker_threads';
import SqliteDatabase from '../sqlite-driver.js';
import { markDue } from './checkpoint-due.js';
import { runProgram } from './sqlite-program.js';

/** Programs per transaction at most, as in sqlite-group-commit.ts; the rest wait for the next. */
const MAX_MEMBERS = 64;

/**
 * @typedef {import('./sqlite-program.js').Program} Program
 * @typedef {{ id: number, program: Program, read?: boolean }} Request
 * @typedef {{ name: string, code: unknown, message: string }} SentError
 * @typedef {{ id: number, result?: import('./sqlite-program.js').ProgramResult, error?: SentError }} Reply
 */

const port = parentPort;
if (port === null) throw new Error('sqlite-writer-thread.js runs as a worker thread');
const { path, busyTimeoutMs, checkpointState, backstopFrames } =
  /** @type {{ path: string, busyTimeoutMs: number, checkpointState: Int32Array, backstopFrames: number }} */ (
    workerData
  );

const database = new SqliteDatabase(path, { timeout: busyTimeoutMs });
const mode = database.pragma('journal_mode = WAL', { simple: true });
if (mode !== 'wal') throw new Error(`SQLite refused WAL journal mode for ${path} (got ${String(mode)})`);
database.pragma('synchronous = FULL');
database.pragma('foreign_keys = ON');
// Each program runs in a savepoint, so SQLite journals the pages it changes that the batch had
// changed before it. Past 64 KiB that journal spills to a temporary file, created, written and
// unlinked per transaction; in memory it stays a copy. Nothing durable lives there: it only undoes a
// savepoint. The thread's statements build no large sorts, which this setting also keeps in memory.
database.pragma('temp_store = MEMORY');
// The checkpoint thread copies the WAL into the database file (sqlite-checkpointer.ts); this
// connection's COMMIT does it only past the backstop.
database.pragma(`wal_autocheckpoint = ${backstopFrames}`);

/** @type {Map<string, import('better-sqlite3').Statement>} */
const statements = new Map();
/** @type {import('./sqlite-program.js').Exec} */
const exec = (sql, params) => {
  let statement = statements.get(sql);
  if (statement === undefined) {
    statement = database.prepare(sql);
    statements.set(sql, statement);
  }
  if (statement.reader)
    return { rows: /** @type {Record<string, unknown>[]} */ (statement.all(params)), changed: 0 };
  return { rows: [], changed: statement.run(params).changes };
};
/** @param {string} sql */
const run = (sql) => void exec(sql, []);

/** @type {Request[]} */
const queue = [];
let scheduled = false;

port.on('message', (/** @type {Request} */ request) => {
  if (request.read === true) return void answerRead(request);
  queue.push(request);
  schedule();
});

/**
 * A read runs at once, between two batches (a batch never yields to the event loop, so no
 * transaction is open here): it sees what was committed, on this connection's warm page cache.
 * @param {Request} request
 */
async function answerRead({ id, program }) {
  try {
    port?.postMessage([{ id, result: await runProgram(program, exec) }]);
  } catch (error) {
    port?.postMessage([{ id, error: sent(error) }]);
  }
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  // After this turn's messages: the programs that arrived together share the transaction.
  setImmediate(() => {
    void runBatch().finally(() => {
      scheduled = false;
      if (queue.length > 0) schedule();
    });
  });
}

async function runBatch() {
  const taken = queue.splice(0, MAX_MEMBERS);
  /** @type {Reply[]} */
  const replies = [];
  try {
    run('begin immediate');
  } catch (error) {
    port?.postMessage(taken.map(({ id }) => ({ id, error: sent(error) })));
    return;
  }
  for (const { id, program } of taken) {
    try {
      run('savepoint member');
      const result = await runProgram(program, exec);
      if (result.undo) run('rollback to member');
      run('release member');
      replies.push({ id, result });
    } catch (error) {
      replies.push({ id, error: sent(error) });
      if (!undoMember()) return failAll(taken, error);
    }
  }
  try {
    run('commit');
  } catch (error) {
    return failAll(taken, error);
  }
  markDue(checkpointState);
  port?.postMessage(replies);
}

/** Back to the member's savepoint; false when SQLite already rolled the whole transaction back. */
function undoMember() {
  try {
    run('rollback to member');
    run('release member');
    return true;
  } catch {
    rollbackQuietly();
    return false;
  }
}

/**
 * @param {Request[]} taken
 * @param {unknown} error
 */
function failAll(taken, error) {
  rollbackQuietly();
  port?.postMessage(taken.map(({ id }) => ({ id, error: sent(error), batch: true })));
}

function rollbackQuietly() {
  try {
    if (database.inTransaction) run('rollback');
  } catch {
    // Nothing left to undo.
  }
}

/**
 * An error as it can cross threads: its driver code decides how the main thread maps it.
 * @param {unknown} error
 * @returns {SentError}
 */
function sent(error) {
  if (error instanceof Error) {
    return { name: error.name, code: /** @type {{ code?: unknown }} */ (error).code, message: error.message };
  }
  return { name: 'Error', code: undefined, message: String(error) };
}
