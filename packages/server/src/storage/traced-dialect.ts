/**
 * SQL spans for both dialects: a Kysely dialect whose connections open one CLIENT span around
 * every query (transaction statements included). better-sqlite3 has no maintained OpenTelemetry
 * instrumentation, and the pg one patches `require`, which an ESM service (and the CLI's
 * `presence serve`, which loads pg before tracing could start) does not go through reliably; one
 * wrapper at the driver gives both the same spans. Only used when tracing is on: with tracing
 * off the dialect is not wrapped at all. The SQL text carries placeholders, never values. A
 * transaction's own statements (BEGIN, COMMIT, ROLLBACK, savepoints) run on the driver's own
 * connection (wrapped-driver.ts), so their spans are opened around the driver's calls instead.
 */
import { SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import type { CompiledQuery, Dialect, Driver, QueryResult } from 'kysely';
import { wrapDriver, type DriverMethod } from './wrapped-driver.js';

export function tracedDialect(dialect: Dialect, tracer: Tracer, system: 'sqlite' | 'postgresql'): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => tracedDriver(dialect.createDriver(), tracer, system),
  };
}

/** The span of each transaction statement a driver runs on its own connection. */
const TRANSACTION_SPANS: Partial<Record<DriverMethod, string>> = {
  beginTransaction: 'BEGIN',
  commitTransaction: 'COMMIT',
  rollbackTransaction: 'ROLLBACK',
  savepoint: 'SAVEPOINT',
  rollbackToSavepoint: 'ROLLBACK',
  releaseSavepoint: 'RELEASE',
};

function tracedDriver(driver: Driver, tracer: Tracer, system: string): Driver {
  return wrapDriver(driver, {
    connection: (connection) => ({
      executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        const operation = operationOf(query.sql);
        const attributes = {
          'db.system.name': system,
          'db.operation.name': operation,
          'db.query.text': query.sql,
        };
        return inDatabaseSpan(tracer, operation, attributes, () => connection.executeQuery<R>(query));
      },
      streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
    }),
    call(method, work) {
      const operation = TRANSACTION_SPANS[method];
      if (operation === undefined) return work();
      const attributes = { 'db.system.name': system, 'db.operation.name': operation };
      return inDatabaseSpan(tracer, operation, attributes, work);
    },
  });
}

/** A statement's span name and `db.operation.name`: its first keyword (SELECT, INSERT, …). */
export function operationOf(text: string): string {
  return /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
}

/**
 * `work` in an active CLIENT span (a child of the caller's): a failure is recorded on the span and
 * thrown on. Also used for the SQLite writer thread's programs (sqlite-writer.ts).
 */
export function inDatabaseSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  work: () => Promise<T>,
): Promise<T> {
  return tracer.startActiveSpan(name, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
