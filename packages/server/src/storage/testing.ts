/**
 * Test helpers for any suite that needs a real store: a fresh, migrated SQLite temp file or
 * PostgreSQL schema per call. PostgreSQL comes from PRESENCE_TEST_DATABASE_URL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tracer } from '@opentelemetry/api';
import { sql } from 'kysely';
import pg from 'pg';
import type { Store } from '../domain/ports.js';
import { runMigrations } from './migrations/run-migrations.js';
import { openDatabase, type Dialect, type StoreOptions } from './open-database.js';
import { createStore } from './open-store.js';
import type { Database } from './schema.js';

export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

export interface TestStore {
  store: Store;
  options: StoreOptions;
  /** Raw rows of a table ordered by its first column (the id), for asserting what a mutation wrote (e.g. outbox and usage rows). */
  rows<T extends keyof Database>(table: T): Promise<Database[T][]>;
  /** Every table of the schema, for tests that assert nothing changed anywhere. */
  tables(): Promise<string[]>;
  /** Inserts raw rows, e.g. rows an older build wrote (test/fixtures/stored-rows/). */
  insert<T extends keyof Database>(table: T, rows: readonly Database[T][]): Promise<void>;
  /** Closes the store and deletes the file or drops the schema. */
  cleanup(): Promise<void>;
}

export function testDatabaseUrl(): string {
  return process.env['PRESENCE_TEST_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
}

/**
 * Whether the PostgreSQL half can run. In CI (CI=true) an unreachable server throws, so the suite
 * fails loudly; elsewhere it prints why and returns false, and callers skip that half.
 */
export async function pgAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: testDatabaseUrl(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    const reason = `PostgreSQL at ${redact(testDatabaseUrl())} is unreachable (${String(error)})`;
    if (process.env['CI'] === 'true') throw new Error(`${reason}; CI requires it`, { cause: error });
    console.warn(`${reason}: skipping the PostgreSQL half. Start it or set PRESENCE_TEST_DATABASE_URL.`);
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export async function openTestStore(
  dialect: Dialect,
  extra: {
    pgPoolSize?: number;
    transactionGuard?: boolean;
    tracer?: Tracer;
    /** PostgreSQL: told the size of each batch of verified settles (StoreOptions.onSettleBatch). */
    onSettleBatch?: (members: number) => void;
  } = {},
): Promise<TestStore> {
  const scratch = dialect === 'sqlite' ? await mkdtemp(join(tmpdir(), 'presence-store-')) : undefined;
  const options: StoreOptions =
    scratch === undefined
      ? {
          databaseUrl: testDatabaseUrl(),
          sqlitePath: '',
          pgSchema: `test_${randomBytes(8).toString('hex')}`,
          pgPoolSize: extra.pgPoolSize ?? 5,
          tracer: extra.tracer,
        }
      : { sqlitePath: join(scratch, 'presence.sqlite'), tracer: extra.tracer };
  const handle = await openDatabase(options);
  await runMigrations(handle);
  return {
    store: createStore(handle, extra.transactionGuard, extra.onSettleBatch),
    options,
    tables: async () => {
      const query =
        dialect === 'sqlite'
          ? sql<{
              name: string;
            }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name`
          : sql<{
              name: string;
            }>`select table_name as name from information_schema.tables where table_schema = current_schema() order by 1`;
      return (await query.execute(handle.db)).rows.map((r) => r.name);
    },
    insert: async (table, rows) => {
      if (rows.length > 0)
        await handle.db
          .insertInto(table)
          .values(rows as never)
          .execute();
    },
    rows: async <T extends keyof Database>(table: T) =>
      (await sql<Database[T]>`select * from ${sql.table(table)} order by 1`.execute(handle.db)).rows,
    async cleanup() {
      await handle.db.destroy();
      if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
      if (options.pgSchema !== undefined) await dropTestSchema(options.pgSchema);
    },
  };
}

/** Drops a test schema and everything in it. */
export async function dropTestSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  try {
    await client.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
