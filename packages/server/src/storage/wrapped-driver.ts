/**
 * How a Kysely driver is wrapped: its connections are handed out wrapped, and every driver method
 * that takes a connection gets the driver's own connection back. Drivers keep private state on
 * their connections (pg's release is a symbol-keyed method of Kysely's PostgreSQL connection), so
 * a wrapped connection must never reach them: when one did, a traced PostgreSQL store never gave
 * its pool connections back and hung at its first migration. Every wrapper of the dialect
 * (sqlite-writer.ts's gate, unavailable-dialect.ts, traced-dialect.ts) go through here, so they
 * stack in any order.
 */
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult } from 'kysely';

/** The driver's methods, as `DriverWrapper.call` is told which one runs. */
export type DriverMethod =
  | 'init'
  | 'acquireConnection'
  | 'beginTransaction'
  | 'commitTransaction'
  | 'rollbackTransaction'
  | 'savepoint'
  | 'rollbackToSavepoint'
  | 'releaseSavepoint'
  | 'releaseConnection'
  | 'destroy';

export interface DriverWrapper {
  /** What callers get in place of the driver's own connection (its queries, wrapped). */
  connection(inner: DatabaseConnection): {
    executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>>;
    streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>>;
  };
  /** Runs each call of the driver's own methods; `work` is the call. */
  call<T>(method: DriverMethod, work: () => Promise<T>): Promise<T>;
}

export function wrapDriver(driver: Driver, wrapper: DriverWrapper): Driver {
  const inner = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const own = (connection: DatabaseConnection): DatabaseConnection => {
    const found = inner.get(connection);
    if (found === undefined) throw new Error('a connection this driver did not hand out');
    return found;
  };
  const { call } = wrapper;
  return {
    init: () => call('init', () => driver.init()),
    async acquireConnection() {
      const connection = await call('acquireConnection', () => driver.acquireConnection());
      const wrapped: DatabaseConnection = wrapper.connection(connection);
      inner.set(wrapped, connection);
      return wrapped;
    },
    beginTransaction: (c, settings) =>
      call('beginTransaction', () => driver.beginTransaction(own(c), settings)),
    commitTransaction: (c) => call('commitTransaction', () => driver.commitTransaction(own(c))),
    rollbackTransaction: (c) => call('rollbackTransaction', () => driver.rollbackTransaction(own(c))),
    releaseConnection: (c) => call('releaseConnection', () => driver.releaseConnection(own(c))),
    destroy: () => call('destroy', () => driver.destroy()),
    ...(driver.savepoint && {
      savepoint: (c, name, compile) => call('savepoint', () => driver.savepoint!(own(c), name, compile)),
    }),
    ...(driver.rollbackToSavepoint && {
      rollbackToSavepoint: (c, name, compile) =>
        call('rollbackToSavepoint', () => driver.rollbackToSavepoint!(own(c), name, compile)),
    }),
    ...(driver.releaseSavepoint && {
      releaseSavepoint: (c, name, compile) =>
        call('releaseSavepoint', () => driver.releaseSavepoint!(own(c), name, compile)),
    }),
  };
}
