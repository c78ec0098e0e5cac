import { sql } from 'kysely';
import type { Store } from '../domain/ports.js';
import { openDatabase, type DatabaseHandle, type StoreOptions } from './open-database.js';
import { createRepos } from './repos/create-repos.js';
import {
  createTransactionGuard,
  runImmediateTransaction,
  runReadCommittedTransaction,
} from './transaction.js';

export type { StoreOptions } from './open-database.js';

/**
 * Opens the store: SQLite when `databaseUrl` is unset, else PostgreSQL. Does not migrate; run
 * `migrateDatabase(options)` first.
 */
export async function openStore(options: StoreOptions): Promise<Store> {
  return createStore(await openDatabase(options));
}

export function createStore({ dialect, db }: DatabaseHandle): Store {
  const guard = createTransactionGuard();
  const outer = db.withPlugin(guard.plugin);
  const begin = dialect === 'sqlite' ? runImmediateTransaction : runReadCommittedTransaction;
  return {
    dialect,
    ...createRepos(outer, dialect),
    transaction: (fn) => guard.run(() => begin(db, (trx) => fn(createRepos(trx, dialect)))),
    async ping() {
      await sql`select 1`.execute(outer);
    },
    close: () => db.destroy(),
  };
}
