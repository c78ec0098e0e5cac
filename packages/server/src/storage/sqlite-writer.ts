/**
 * The SQLite writer thread, seen from the main thread. The hot path's writes (a verification's
 * settle, a challenge's creation: programs, hot-path/sqlite-program.js) go to a worker thread with
 * its own connection (hot-path/sqlite-writer-thread.js), which commits them in groups and answers
 * after each COMMIT. The event loop that serves HTTP and checks signatures no longer runs those
 * statements nor waits for the fsync. docs/adr/0017-sqlite-writer-thread.md.
 *
 * SQLite allows one writer at a time, and a connection that waits for the lock blocks its thread
 * (busy_timeout). So the main connection never asks for the lock while the writer thread may hold
 * it: every write of the main connection (a group-commit transaction, or a single statement
 * outside one) first `enter`s the gate, which stops sending programs and waits until the thread
 * has answered every program it was sent; `leave` sends what queued meanwhile. Reads need no
 * gate (WAL), and the gate does not wait for them.
 * Another process still waits on the lock as before.
 *
 * The hot path's two reads (a challenge with its credential, a subject's credentials) also run on
 * the thread, at once and outside any transaction (`read`). SQLite drops a connection's whole page
 * cache when another connection has committed since its last read, so on the main connection every
 * such read began cold, at about three times the cost; the thread's connection is the one that
 * commits, and its cache stays warm. Measured in docs/performance-history.md, "Issue 10, tenth pass".
 *
 * Neither connection copies the WAL back into the database file in its COMMIT: a third thread
 * does (sqlite-checkpointer.ts), after the commits of both have marked a checkpoint as due.
 */
import { Worker } from 'node:worker_threads';
import type { Tracer } from '@opentelemetry/api';
import type { CompiledQuery, Dialect, Driver, QueryResult } from 'kysely';
import type { Program, ProgramResult } from './hot-path/sqlite-program.js';
import { CHECKPOINT_BACKSTOP_FRAMES, createSqliteCheckpointer } from './sqlite-checkpointer.js';
import { inDatabaseSpan, operationOf } from './traced-dialect.js';
import { databaseUnavailable, isDatabaseUnavailable } from './unavailable-dialect.js';
import { wrapDriver } from './wrapped-driver.js';

export interface SqliteWriter {
  /** Runs the program in the writer thread's next transaction; resolves after its COMMIT. */
  run(program: Program): Promise<ProgramResult>;
  /** Runs a read-only program on the thread's connection at once, outside any transaction. */
  read(program: Program): Promise<ProgramResult>;
  /** Before the main connection writes: resolves when the thread holds no program and is sent none. */
  enter(): Promise<void>;
  leave(): void;
  /** Waits for what was sent, then stops the thread. */
  close(): Promise<void>;
}

interface Sent {
  resolve: (result: ProgramResult) => void;
  reject: (error: unknown) => void;
}

/** Until the thread holds no programs (the gate), or nothing at all, reads included (closing). */
type Quiet = 'no programs' | 'nothing';

interface Reply {
  id: number;
  result?: ProgramResult;
  error?: { name: string; code: unknown; message: string };
  batch?: boolean;
}

const THREAD = new URL('./hot-path/sqlite-writer-thread.js', import.meta.url);

/**
 * `tracer` (tracing on): one CLIENT span per program, from sending to its answer, in the caller's
 * trace, named BATCH (OpenTelemetry's database batch) with every statement's text, placeholders only.
 */
export function createSqliteWriter(
  path: string,
  busyTimeoutMs: number,
  tracer?: Tracer,
  /** The thread's module; tests run one that dies. */
  thread: URL = THREAD,
): SqliteWriter {
  let worker: Worker | undefined;
  let nextId = 0;
  const sent = new Map<number, Sent>();
  // The programs among `sent`. The gate waits for these only: reads never take the write lock, and
  // under load there is always one in flight, so waiting for them too could wait for ever.
  const programs = new Set<number>();
  const held: { program: Program; answer: Sent }[] = [];
  let entered = 0;
  let waiting: { until: Quiet; resolve: () => void }[] = [];
  let closed = false;
  const checkpointer = createSqliteCheckpointer(path, busyTimeoutMs);

  const isQuiet = (until: Quiet) => (until === 'nothing' ? sent.size === 0 : programs.size === 0);
  const quiet = (until: Quiet) =>
    isQuiet(until) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ until, resolve }));
  const wakeQuietWaiters = () => {
    // Idle, the thread does not keep the process alive; with anything out, it does.
    if (sent.size === 0) worker?.unref();
    const ready = waiting.filter((w) => isQuiet(w.until));
    if (ready.length === 0) return;
    waiting = waiting.filter((w) => !isQuiet(w.until));
    for (const { resolve } of ready) resolve();
  };

  const start = (): Worker => {
    const started = new Worker(thread, {
      workerData: {
        path,
        busyTimeoutMs,
        checkpointState: checkpointer.state,
        backstopFrames: CHECKPOINT_BACKSTOP_FRAMES,
      },
    });
    checkpointer.run();
    started.on('message', (replies: Reply[]) => {
      for (const reply of replies) answer(reply);
      wakeQuietWaiters();
    });
    // The thread died (it could not open the file, say): what it held fails as an outage, and the
    // next program starts a new one.
    const lost = (cause: unknown) => {
      if (worker === started) worker = undefined;
      for (const [, pending] of sent) pending.reject(databaseUnavailable(cause));
      sent.clear();
      programs.clear();
      wakeQuietWaiters();
    };
    started.on('error', lost);
    started.on('exit', (code) => lost(new Error(`the SQLite writer thread exited with code ${code}`)));
    return started;
  };

  const answer = (reply: Reply) => {
    const pending = sent.get(reply.id);
    if (pending === undefined) return;
    sent.delete(reply.id);
    programs.delete(reply.id);
    if (reply.result !== undefined) return pending.resolve(reply.result);
    const error = Object.assign(new Error(reply.error?.message ?? 'the SQLite writer failed'), {
      name: reply.error?.name ?? 'Error',
      code: reply.error?.code,
    });
    // A failed transaction is an outage for every member, as in sqlite-group-commit.ts.
    if (reply.batch === true || isDatabaseUnavailable('sqlite', error))
      pending.reject(databaseUnavailable(error));
    else pending.reject(error);
  };

  const send = (program: Program, pending: Sent, read = false) => {
    worker ??= start();
    if (sent.size === 0) worker.ref();
    const id = nextId++;
    sent.set(id, pending);
    if (!read) programs.add(id);
    worker.postMessage(read ? { id, program, read } : { id, program });
  };

  /** A promise for the program's result, refused at once once the store is closed. */
  const unlessClosed = (post: (pending: Sent) => void) =>
    new Promise<ProgramResult>((resolve, reject) => {
      if (closed) reject(databaseUnavailable(new Error('the store is closed')));
      else post({ resolve, reject });
    });

  const submit = (program: Program) =>
    unlessClosed((pending) => {
      if (entered > 0) held.push({ program, answer: pending });
      else send(program, pending);
    });

  const read = (program: Program) => unlessClosed((pending) => send(program, pending, true));

  return {
    run: tracer === undefined ? submit : (program) => traced(tracer, program, submit),
    read: tracer === undefined ? read : (program) => tracedRead(tracer, program, read),
    enter() {
      entered++;
      return quiet('no programs');
    },
    leave() {
      // What the main connection wrote inside the gate is committed (or rolled back) by now.
      checkpointer.due();
      entered--;
      if (entered > 0) return;
      for (const { program, answer: pending } of held.splice(0)) send(program, pending);
    },
    async close() {
      closed = true;
      // First: the commits of the close need no checkpoint; SQLite's own close does the last one.
      const checkpointsStopped = checkpointer.close();
      await this.enter();
      this.leave();
      await quiet('nothing');
      const thread = worker;
      worker = undefined;
      if (thread) await thread.terminate();
      await checkpointsStopped;
    },
  };
}

/** The program's statements as a span's `db.query.text`: placeholders only, never values. */
const queryText = (program: Program) => program.steps.map((step) => step.sql).join('; ');

function traced(tracer: Tracer, program: Program, submit: (p: Program) => Promise<ProgramResult>) {
  const attributes = {
    'db.system.name': 'sqlite',
    'db.operation.name': 'BATCH',
    'db.operation.batch.size': program.steps.length,
    'db.query.text': queryText(program),
  };
  return inDatabaseSpan(tracer, 'BATCH', attributes, () => submit(program));
}

/** A read is one statement: its span looks like the main connection's (traced-dialect.ts). */
function tracedRead(tracer: Tracer, program: Program, read: (p: Program) => Promise<ProgramResult>) {
  const text = queryText(program);
  const operation = operationOf(text);
  const attributes = { 'db.system.name': 'sqlite', 'db.operation.name': operation, 'db.query.text': text };
  return inDatabaseSpan(tracer, operation, attributes, () => read(program));
}

/**
 * The main SQLite dialect, with its writes outside a transaction behind the writer's gate (a
 * transaction's BEGIN IMMEDIATE is entered by sqlite-group-commit.ts). Whether a statement writes
 * is SQLite's own answer (`readonly`). The dialect's destroy also stops the writer thread.
 */
export function withWriterGate(dialect: Dialect, writer: SqliteWriter, database: StatementSource): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => gatedDriver(dialect.createDriver(), writer, database),
  };
}

/** The main connection as the gate needs it: is a transaction open, does a statement write. */
export interface StatementSource {
  readonly inTransaction: boolean;
  prepare(text: string): { readonly: boolean };
}

function gatedDriver(driver: Driver, writer: SqliteWriter, database: StatementSource): Driver {
  return wrapDriver(driver, {
    connection: (connection) => ({
      async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        if (database.inTransaction || database.prepare(query.sql).readonly)
          return connection.executeQuery<R>(query);
        await writer.enter();
        try {
          return await connection.executeQuery<R>(query);
        } finally {
          writer.leave();
        }
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) =>
        connection.streamQuery<R>(query, chunkSize),
    }),
    // A transaction's own steps pass the gate as before: a deferred BEGIN is read-only to SQLite,
    // and the rest run inside the transaction. Closing stops the writer thread first.
    async call(method, work) {
      if (method === 'destroy') await writer.close();
      return work();
    },
  });
}
