/**
 * Transactions for both dialects, and a guard against using the outer store inside one.
 *
 * SQLite: Kysely's transaction() sends a deferred BEGIN, which takes the write lock only at the
 * first write; when another process committed in between, that upgrade fails with
 * SQLITE_BUSY_SNAPSHOT. So writes run in BEGIN IMMEDIATE on the dialect's single connection
 * (held by db.connection(), whose mutex also serializes this process's other queries). The store
 * groups its transactions (sqlite-group-commit.ts); migrations use runImmediateTransaction alone.
 * PostgreSQL: a pooled connection in READ COMMITTED; conditional updates are single statements.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { sql, type Kysely, type KyselyPlugin } from 'kysely';
import type { Database } from './schema.js';

export async function runImmediateTransaction<T>(
  db: Kysely<Database>,
  fn: (conn: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    let result: T;
    try {
      result = await fn(conn);
    } catch (error) {
      await rollbackQuietly(conn);
      throw error;
    }
    await sql`commit`.execute(conn);
    return result;
  });
}

/** The caller's error matters more than a failed rollback (SQLite may already have rolled back). */
async function rollbackQuietly(conn: Kysely<Database>): Promise<void> {
  try {
    await sql`rollback`.execute(conn);
  } catch {
    // Nothing left to undo.
  }
}

export async function runReadCommittedTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return db.transaction().setIsolationLevel('read committed').execute(fn);
}

interface TransactionScope {
  open: boolean;
}

export interface TransactionGuard {
  /** Add to the outer store's Kysely: its queries fail inside a transaction of the same store (unset: off). */
  plugin: KyselyPlugin | undefined;
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** The same check for a query that does not pass through Kysely (the SQLite writer thread's reads). */
  assertOutside(): void;
}

/**
 * Inside `store.transaction(fn)`, a query through `store` instead of `tx` would deadlock on SQLite
 * (the one connection is held by the transaction) and silently escape the transaction on
 * PostgreSQL. The guard makes both a clear error, and so is a nested `store.transaction`.
 *
 * It needs AsyncLocalStorage, which on Node 20 and 22 puts a promise hook on every promise of the
 * process. On Node 20 the guard cost about 7 % of a verification's server CPU on SQLite and 9 % of
 * a creation's (docs/performance-history.md, fourteenth pass; ADR 0018). So it is a development check: on
 * outside production (tests, `npm start`), off by default in production (`PRESENCE_STORE_GUARD`).
 * `enabled: false` is the same store without the check.
 */
export function createTransactionGuard(enabled = true): TransactionGuard {
  if (!enabled) {
    return { assertOutside: () => undefined, plugin: undefined, run: (fn) => fn() };
  }
  const scopes = new AsyncLocalStorage<TransactionScope>();
  const assertOutside = (): void => {
    if (scopes.getStore()?.open === true) {
      throw new Error('store used inside its own transaction: use the tx argument of store.transaction()');
    }
  };
  return {
    assertOutside,
    plugin: {
      transformQuery: (args) => {
        assertOutside();
        return args.node;
      },
      transformResult: async (args) => args.result,
    },
    run: async (fn) => {
      assertOutside();
      const scope = { open: true };
      try {
        return await scopes.run(scope, fn);
      } finally {
        scope.open = false;
      }
    },
  };
}
