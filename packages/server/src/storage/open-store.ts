import { sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import { openDatabase, type DatabaseHandle, type StoreOptions } from './open-database.js';
import { createPgSettleLanes } from './hot-path/pg-settle-lanes.js';
import { pgVerified } from './hot-path/presence-hot-path.js';
import { runner } from './hot-path/run-statement.js';
import { createRepos, type HotPathLanes } from './repos/create-repos.js';
import { createSqliteGroupCommit, type GroupCommit } from './sqlite-group-commit.js';
import { createTransactionGuard, runReadCommittedTransaction } from './transaction.js';

export type { StoreOptions } from './open-database.js';

/**
 * Opens the store: SQLite when `databaseUrl` is unset, else PostgreSQL. Does not migrate; run
 * `migrateDatabase(options)` first.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  return createStore(await openDatabase(options), options.transactionGuard, options.onSettleBatch);
}

/**
 * `transactionGuard`: see createTransactionGuard (transaction.ts). `onSettleBatch`: see
 * StoreOptions.
 */
export function createStore(
  { dialect, db, sqliteWriter }: DatabaseHandle,
  transactionGuard = true,
  onSettleBatch?: (members: number) => void,
): Store {
  const guard = createTransactionGuard(transactionGuard);
  const outer = guard.plugin === undefined ? db : db.withPlugin(guard.plugin);
  // SQLite: transactions waiting together share one BEGIN IMMEDIATE … COMMIT (sqlite-group-commit.ts).
  const begin: GroupCommit['run'] =
    dialect === 'sqlite'
      ? createSqliteGroupCommit(db, sqliteWriter).run
      : (fn) => runReadCommittedTransaction(db, fn);
  // PostgreSQL: a tenant's verified settles outside a transaction go in batches (pg-settle-lanes.ts).
  const lanes: HotPathLanes =
    dialect === 'postgres'
      ? {
          pgSettles: createPgSettleLanes(
            (members) => pgVerified(runner(db, dialect), members),
            onSettleBatch,
          ),
        }
      : { sqliteWriter };
  return {
    dialect,
    // The outer store's hot path: SQLite's reads on the writer thread, every call under the guard.
    ...createRepos(outer, dialect, { sqliteReads: sqliteWriter, assertOutside: guard.assertOutside }),
    transaction: (fn) => guard.run(() => begin((trx) => fn(createRepos(trx, dialect)))),
    // Each statement its own transaction, on the unguarded handle: PostgreSQL in autocommit (a
    // tenant's settles in batches), SQLite with the hot path's writes on the writer thread. SQLite
    // without that thread runs `fn` as one transaction of the group commit.
    selfContainedWrites: (fn) =>
      dialect === 'sqlite' && sqliteWriter === undefined
        ? guard.run(() => begin((trx) => fn(createRepos(trx, dialect))))
        : guard.run(() => fn(createRepos(db, dialect, lanes))),
    async ping() {
      await sql`select 1`.execute(outer);
    },
    close: () => db.destroy(),
  };
}
