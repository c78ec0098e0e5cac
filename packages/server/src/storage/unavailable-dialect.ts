/**
 * Turns "the database cannot be reached right now" into one domain error, at the driver, so every
 * query, transaction and pool checkout of either dialect reports an outage the same way: a
 * `service_unavailable` DomainError with a Retry-After, which the HTTP layer sends as 503 and the
 * worker answers with back-off. Errors are classified by their driver codes:
 * - PostgreSQL: SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown, cannot connect
 *   now), 53300 (too many connections); Node socket errors (ECONNREFUSED, ECONNRESET, …); any
 *   failure to check a connection out of the pool; and errors pg raises with no SQLSTATE at all
 *   (a connection ended mid-query), since every error the server itself sends carries one.
 * - SQLite: SQLITE_BUSY* and SQLITE_LOCKED* (another connection held the lock past busy_timeout),
 *   SQLITE_IOERR*, SQLITE_FULL.
 * Everything else (constraint violations, syntax) passes through unchanged.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';
import { DomainError } from '../domain/errors.js';
import { wrapDriver } from './wrapped-driver.js';

/** What API callers are told to wait before retrying. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

const PG_CODES = new Set(['57P01', '57P02', '57P03', '53300']);
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const SQLITE_PREFIXES = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_IOERR', 'SQLITE_FULL'];

export type DialectName = 'sqlite' | 'postgres';

export function isDatabaseUnavailable(dialect: DialectName, error: unknown): boolean {
  if (!(error instanceof Error) || error instanceof DomainError) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  if (dialect === 'sqlite')
    return typeof code === 'string' && SQLITE_PREFIXES.some((p) => code.startsWith(p));
  if (typeof code === 'string') return code.startsWith('08') || PG_CODES.has(code);
  return error.constructor === Error;
}

export function databaseUnavailable(cause: unknown): DomainError {
  return new DomainError('service_unavailable', 'the database is unavailable; retry shortly', [], {
    cause,
    retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS,
  });
}

/** The dialect, with its driver's outage errors translated as described above. */
export function withUnavailableErrors(dialect: Dialect, name: DialectName): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => translatingDriver(dialect.createDriver(), name),
  };
}

function translatingDriver(driver: Driver, name: DialectName): Driver {
  const translate = async <T>(work: () => Promise<T>, always = false): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (always && !(error instanceof DomainError)) throw databaseUnavailable(error);
      throw isDatabaseUnavailable(name, error) ? databaseUnavailable(error) : error;
    }
  };
  return wrapDriver(driver, {
    connection: (connection) => ({
      executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
        translate(() => connection.executeQuery<R>(query)),
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) =>
        streamTranslated<R>(connection, query, name, chunkSize),
    }),
    // Failing to obtain a connection at all is an outage whatever the driver called it.
    call: (method, work) => translate(work, method === 'acquireConnection' && name === 'postgres'),
  });
}

async function* streamTranslated<R>(
  connection: DatabaseConnection,
  query: CompiledQuery,
  name: DialectName,
  chunkSize?: number,
): AsyncIterableIterator<QueryResult<R>> {
  try {
    yield* connection.streamQuery<R>(query, chunkSize);
  } catch (error) {
    throw isDatabaseUnavailable(name, error) ? databaseUnavailable(error) : error;
  }
}
