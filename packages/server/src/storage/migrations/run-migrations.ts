/**
 * Applies pending migrations, safely when several processes start at once:
 * SQLite takes the write lock first (BEGIN IMMEDIATE; the others wait on busy_timeout),
 * PostgreSQL holds an advisory lock keyed by the current schema for the whole run.
 * All pending migrations of one run commit together or not at all.
 */
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../open-database.js';
import type { Database } from '../schema.js';
import { runImmediateTransaction } from '../transaction.js';
import type { Migration } from './migration.js';
import { POSTGRES_MIGRATIONS } from './postgres/index.js';
import { SQLITE_MIGRATIONS } from './sqlite/index.js';

export interface MigrationReport {
  /** Ids applied by this run, in order; empty when the schema was already current. */
  applied: string[];
}

export async function runMigrations({ dialect, db }: DatabaseHandle): Promise<MigrationReport> {
  const applied =
    dialect === 'sqlite'
      ? await runImmediateTransaction(db, (conn) => applyPending(conn, SQLITE_MIGRATIONS))
      : await runUnderAdvisoryLock(db, POSTGRES_MIGRATIONS);
  return { applied };
}

async function runUnderAdvisoryLock(
  db: Kysely<Database>,
  migrations: readonly Migration[],
): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    const key = sql`hashtext('presence-migrations:' || coalesce(current_schema(), ''))`;
    await sql`select pg_advisory_lock(${key})`.execute(conn);
    try {
      return await conn.transaction().execute((trx) => applyPending(trx, migrations));
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}

async function applyPending(db: Kysely<Database>, migrations: readonly Migration[]): Promise<string[]> {
  await sql`create table if not exists schema_migrations (
    id TEXT NOT NULL PRIMARY KEY,
    applied_at BIGINT NOT NULL
  )`.execute(db);
  const done = new Set(
    (await db.selectFrom('schema_migrations').select('id').execute()).map((row) => row.id),
  );
  const applied: string[] = [];
  for (const migration of migrations) {
    if (done.has(migration.id)) continue;
    await migration.up(db);
    await db.insertInto('schema_migrations').values({ id: migration.id, applied_at: Date.now() }).execute();
    applied.push(migration.id);
  }
  return applied;
}

/** The ids of the migrations this build has that the database has not applied (all: never migrated). */
export async function pendingMigrations({ dialect, db }: DatabaseHandle): Promise<string[]> {
  const migrations = dialect === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
  let done: Set<string>;
  try {
    done = new Set((await db.selectFrom('schema_migrations').select('id').execute()).map((row) => row.id));
  } catch {
    done = new Set();
  }
  return migrations.map((m) => m.id).filter((id) => !done.has(id));
}
