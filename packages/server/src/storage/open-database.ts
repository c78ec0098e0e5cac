/**
 * Opens the Kysely handle for either dialect. `openStore` and `migrateDatabase` both start here;
 * nothing outside storage/ sees the handle.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import SqliteDatabase from './sqlite-driver.js';
import type { Tracer } from '@opentelemetry/api';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Dialect as KyselyDialect } from 'kysely';
import pg from 'pg';
import { PREPARED_NAMES } from './hot-path/statements.js';
import type { Database } from './schema.js';
import { CHECKPOINT_BACKSTOP_FRAMES } from './sqlite-checkpointer.js';
import { createSqliteWriter, withWriterGate, type SqliteWriter } from './sqlite-writer.js';
import { withUnavailableErrors } from './unavailable-dialect.js';
import { tracedDialect } from './traced-dialect.js';

export interface StoreOptions {
  /** Unset → SQLite at `sqlitePath`; `postgres://…` or `postgresql://…` → PostgreSQL. */
  databaseUrl?: string | undefined;
  sqlitePath: string;
  /** PostgreSQL schema to use (created if missing) via search_path on every pooled connection. */
  pgSchema?: string | undefined;
  pgPoolSize?: number | undefined;
  /** Errors of idle pooled PostgreSQL connections (the pool drops them and reconnects). */
  onPoolError?: ((error: Error) => void) | undefined;
  /** How long a PostgreSQL connection (or a free pool slot) is awaited before a 503 (default 5 s). */
  pgConnectTimeoutMs?: number | undefined;
  /** How long SQLite waits for another connection's write lock before a 503 (default 5 s). */
  sqliteBusyTimeoutMs?: number | undefined;
  /** Receives the PostgreSQL pool's live counters once it exists (the metrics read them at scrape). */
  onPool?: ((pool: PoolStats) => void) | undefined;
  /**
   * PostgreSQL: told the number of verified settles in each batch as it leaves (pg-settle-lanes.ts);
   * the metrics count them.
   */
  onSettleBatch?: ((members: number) => void) | undefined;
  /** Set (tracing on) → one span per SQL statement; unset → the dialect is used as is. */
  tracer?: Tracer | undefined;
  /** Using the store inside its own transaction is an error (default) or unchecked (transaction.ts). */
  transactionGuard?: boolean | undefined;
}

/** pg.Pool's counters. */
export interface PoolStats {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
}

export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  dialect: Dialect;
  db: Kysely<Database>;
  /** SQLite on a file: the writer thread, where the hot path's writes go (unset in memory). */
  sqliteWriter?: SqliteWriter | undefined;
}

const DEFAULT_POOL_SIZE = 10;
const DEFAULT_TIMEOUT_MS = 5000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const PG_INT8_OID = 20;

export async function openDatabase(options: StoreOptions): Promise<DatabaseHandle> {
  const url = options.databaseUrl;
  if (url === undefined || url === '') {
    return openSqlite(options);
  }
  if (!/^postgres(ql)?:\/\//.test(url)) {
    throw new Error('databaseUrl must start with postgres:// or postgresql://');
  }
  return { dialect: 'postgres', db: await openPostgres(url, options) };
}

/**
 * One better-sqlite3 connection on this thread (Kysely serializes access to it), and for a file a
 * second one on the writer thread for the hot path's writes, behind a gate (sqlite-writer.ts). WAL
 * lets readers run beside the writer; synchronous=FULL fsyncs the WAL on every commit, so a
 * returned receipt survives a power loss; busy_timeout makes a second process wait for the write
 * lock instead of failing at once.
 */
function openSqlite(options: StoreOptions): DatabaseHandle {
  const path = options.sqlitePath;
  const busyTimeoutMs = options.sqliteBusyTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  mkdirSync(dirname(path), { recursive: true });
  const database = new SqliteDatabase(path, { timeout: busyTimeoutMs });
  try {
    const mode: unknown = database.pragma('journal_mode = WAL', { simple: true });
    if (mode !== 'wal') throw new Error(`SQLite refused WAL journal mode for ${path} (got ${String(mode)})`);
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
  } catch (error) {
    database.close();
    throw error;
  }
  const cached = withStatementCache(database);
  let dialect: KyselyDialect = new SqliteDialect({ database: cached });
  // A second connection needs a file: an in-memory database keeps its writes on the main thread.
  const sqliteWriter = database.memory ? undefined : createSqliteWriter(path, busyTimeoutMs, options.tracer);
  if (sqliteWriter) {
    // The checkpoint thread copies the WAL (sqlite-checkpointer.ts); this connection only past the backstop.
    database.pragma(`wal_autocheckpoint = ${CHECKPOINT_BACKSTOP_FRAMES}`);
    dialect = withWriterGate(dialect, sqliteWriter, {
      get inTransaction() {
        return database.inTransaction;
      },
      prepare: cached.prepare,
    });
  }
  const db = new Kysely<Database>({
    dialect: traced(withUnavailableErrors(dialect, 'sqlite'), options.tracer, 'sqlite'),
  });
  return { dialect: 'sqlite', db, sqliteWriter };
}

function traced(dialect: KyselyDialect, tracer: Tracer | undefined, system: 'sqlite' | 'postgresql') {
  return tracer === undefined ? dialect : tracedDialect(dialect, tracer, system);
}

/** Distinct SQL texts are few (queries are built from fixed shapes), so the cache stays small. */
const STATEMENT_CACHE_LIMIT = 1000;

/**
 * Kysely prepares every query anew; preparing costs more than running most of ours. Statements
 * are reusable, and the dialect runs one query at a time on its single connection, so one cached
 * statement per SQL text is safe.
 */
function withStatementCache(database: BetterSqlite3.Database) {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement === undefined) {
        if (statements.size >= STATEMENT_CACHE_LIMIT) statements.clear();
        statement = database.prepare(text);
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

async function openPostgres(url: string, options: StoreOptions): Promise<Kysely<Database>> {
  const schema = options.pgSchema;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new Error(`pgSchema must match ${SCHEMA_NAME.source}`);
  }
  const pool = new pg.Pool({
    Client: PreparingClient,
    connectionString: url,
    max: options.pgPoolSize ?? DEFAULT_POOL_SIZE,
    connectionTimeoutMillis: options.pgConnectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    keepAlive: true,
    // Per pool, so nothing global changes: BIGINT (epoch ms, counts) arrives as a number.
    types: { getTypeParser: getTypeParser as typeof pg.types.getTypeParser },
    ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
  });
  const onError = options.onPoolError ?? (() => undefined);
  pool.on('error', onError);
  // A connection that breaks while checked out also emits 'error' on its client, which pg-pool
  // listens to only while the client is idle: unheard, it would crash the process. The query in
  // flight fails on its own (and becomes a 503); the pool discards the broken client on release.
  pool.on('connect', (client) => client.on('error', onError));
  options.onPool?.(pool);
  const dialect = withUnavailableErrors(new PostgresDialect({ pool }), 'postgres');
  const db = new Kysely<Database>({ dialect: traced(dialect, options.tracer, 'postgresql') });
  if (schema === undefined) return db;
  try {
    await createSchema(db, schema);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return db;
}

/**
 * The pg client every pooled connection uses. Two departures from pg.Client, both for the
 * (text, values) form Kysely calls:
 * - the hot path's statements (hot-path/statements.ts) run as named prepared statements: parsed
 *   and planned once per pooled connection instead of on every request. Every other text runs
 *   unnamed, as before, so the set of prepared statements per connection is fixed;
 * - the result comes back through pg's callback form, wrapped in one plain promise. pg's own
 *   promise form chains a second promise onto the first; measured, that chain made V8 promote
 *   nearly every row a query returned (an export of 100,000 receipts promoted ~50 MB/s into the
 *   old generation), where the callback form leaves them young (docs/performance.md).
 */
class PreparingClient extends pg.Client {
  // pg's many query() overloads cannot be restated here; the result is always the base method's.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    const call = super.query as (...a: unknown[]) => never;
    if (typeof text !== 'string' || args.length !== 2) return call.apply(this, args);
    const name = PREPARED_NAMES.get(text);
    const config = name === undefined ? { text, values } : { name, text, values };
    return new Promise((resolve, reject) => {
      call.call(this, config, (error: Error | null, result: unknown) =>
        error ? reject(error) : resolve(result),
      );
    }) as never;
  }
}

function getTypeParser(oid: number, format?: 'text' | 'binary'): unknown {
  if (oid === PG_INT8_OID && format !== 'binary') return parseInt8;
  return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
}

function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) throw new RangeError(`BIGINT ${value} is beyond Number's safe range`);
  return parsed;
}

/** Two processes may race here: a concurrent creation of the same schema is not an error. */
async function createSchema(db: Kysely<Database>, schema: string): Promise<void> {
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== '23505' && code !== '42P06') throw error;
  }
}
