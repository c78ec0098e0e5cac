/**
 * Group commit for SQLite: the transactions that are waiting when the connection comes free run
 * one after another inside ONE `BEGIN IMMEDIATE … COMMIT`, each in its own savepoint, so a burst
 * of verifications pays one WAL fsync instead of one each (`synchronous=FULL` is kept: the commit
 * is as durable as before, it is only shared). Nothing is answered before the commit:
 * - a transaction whose work succeeded resolves once the shared COMMIT succeeded;
 * - one whose work threw is rolled back to its savepoint (the others keep their writes) and its
 *   error is delivered after the COMMIT too, since it may have been decided on the batch's
 *   uncommitted writes (a challenge settled by an earlier member, say);
 * - if the COMMIT fails, or SQLite rolled the whole transaction back on its own (an I/O error,
 *   a full disk), every member fails with that error, mapped to a 503 when it is an outage.
 * Members run strictly one at a time on the one connection, so the batch is equivalent to the
 * same transactions committed serially; a second process still waits on the write lock
 * (busy_timeout). Each member runs in its caller's async context (traces, the store guard).
 * With the writer thread (sqlite-writer.ts), a batch first waits at its gate, so the two
 * connections of this process never wait for each other's write lock.
 * docs/adr/0013-sqlite-group-commit.md has the measurements and the reasons.
 */
import { AsyncResource } from 'node:async_hooks';
import { CompiledQuery, type Kysely } from 'kysely';
import { DomainError } from '../domain/errors.js';
import type { Database } from './schema.js';
import type { SqliteWriter } from './sqlite-writer.js';
import { databaseUnavailable } from './unavailable-dialect.js';

/** Members of one batch at most; a longer queue is served by the next batch. */
export const GROUP_COMMIT_MAX_MEMBERS = 64;

export interface GroupCommit {
  run<T>(fn: (conn: Kysely<Database>) => Promise<T>): Promise<T>;
}

interface Member {
  work: (conn: Kysely<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { member: Member; ok: true; value: unknown } | { member: Member; ok: false; error: unknown };

const BEGIN = CompiledQuery.raw('begin immediate');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint member');
const RELEASE = CompiledQuery.raw('release member');
const ROLLBACK_TO = CompiledQuery.raw('rollback to member');

export function createSqliteGroupCommit(db: Kysely<Database>, writer?: SqliteWriter): GroupCommit {
  const queue: Member[] = [];
  let scheduled = false;
  // Batches start from the context the store was opened in, not from their first member's request.
  const home = new AsyncResource('presence.sqlite-group-commit');

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // After the poll phase: requests read in this turn of the event loop join the same batch.
    home.runInAsyncScope(() => setImmediate(() => void runBatch()));
  };

  const runBatch = async () => {
    const taken: Member[] = [];
    await writer?.enter();
    try {
      await db.connection().execute(async (conn) => {
        try {
          await commitBatch(conn, queue, taken);
        } catch (error) {
          await rollbackQuietly(conn);
          throw error;
        }
      });
    } catch (error) {
      // No connection, BEGIN refused (the write lock stayed elsewhere past busy_timeout) or a
      // savepoint failed: nothing of this batch committed. With nothing taken yet, the members
      // that waited for this batch fail instead (each would have waited as long on its own).
      const failed = taken.length > 0 ? taken : queue.splice(0, GROUP_COMMIT_MAX_MEMBERS);
      for (const member of failed) member.reject(error); // no-op for members already answered
    } finally {
      writer?.leave();
      scheduled = false;
      if (queue.length > 0) schedule();
    }
  };

  return {
    run<T>(fn: (conn: Kysely<Database>) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        // The caller's async context (trace, store guard), without AsyncResource.bind's per-call cost.
        const caller = new AsyncResource('presence.sqlite-transaction');
        const work = (conn: Kysely<Database>) => caller.runInAsyncScope(fn, undefined, conn);
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        schedule();
      });
    },
  };
}

/**
 * Takes members from the queue (into `taken`) and runs each in a savepoint of one transaction;
 * answers them all once the COMMIT is known.
 */
async function commitBatch(conn: Kysely<Database>, queue: Member[], taken: Member[]): Promise<void> {
  await conn.executeQuery(BEGIN);
  const outcomes: Outcome[] = [];
  while (taken.length < GROUP_COMMIT_MAX_MEMBERS && queue.length > 0) {
    const member = queue.shift()!;
    taken.push(member);
    await conn.executeQuery(SAVEPOINT);
    try {
      const value = await member.work(conn);
      await conn.executeQuery(RELEASE);
      outcomes.push({ member, ok: true, value });
    } catch (error) {
      outcomes.push({ member, ok: false, error });
      if (!(await undoMember(conn))) return failAll(taken, error);
    }
  }
  try {
    await conn.executeQuery(COMMIT);
  } catch (error) {
    await rollbackQuietly(conn);
    return failAll(taken, error);
  }
  for (const outcome of outcomes) {
    if (outcome.ok) outcome.member.resolve(outcome.value);
    else outcome.member.reject(outcome.error);
  }
}

/** Back to the member's savepoint; false when SQLite already rolled the whole transaction back. */
async function undoMember(conn: Kysely<Database>): Promise<boolean> {
  try {
    await conn.executeQuery(ROLLBACK_TO);
    await conn.executeQuery(RELEASE);
    return true;
  } catch {
    await rollbackQuietly(conn);
    return false;
  }
}

/** Nothing of the batch committed: every member learns it, as an outage unless it already is one. */
function failAll(members: Member[], error: unknown): void {
  const outage = error instanceof DomainError && error.code === 'service_unavailable';
  const failure = outage ? error : databaseUnavailable(error);
  for (const member of members) member.reject(failure);
}

async function rollbackQuietly(conn: Kysely<Database>): Promise<void> {
  try {
    await conn.executeQuery(ROLLBACK);
  } catch {
    // Nothing left to undo.
  }
}
