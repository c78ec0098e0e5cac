/**
 * SQL spans for both dialects: a Kysely dialect whose connections open one CLIENT span around
 * every query (transaction statements included). better-sqlite3 has no maintained OpenTelemetry
 * instrumentation, and the pg one patches `require`, which an ESM service (and the CLI's
 * `presence serve`, which loads pg before tracing could start) does not go through reliably; one
 * wrapper at the driver gives both the same spans. Only used when tracing is on: with tracing
 * off the dialect is not wrapped at all. The SQL text carries placeholders, never values.
 */
import { SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult } from 'kysely';

export function tracedDialect(dialect: Dialect, tracer: Tracer, system: 'sqlite' | 'postgresql'): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createDriver: () => tracedDriver(dialect.createDriver(), tracer, system),
  };
}

function tracedDriver(driver: Driver, tracer: Tracer, system: string): Driver {
  const acquireConnection = async () => tracedConnection(await driver.acquireConnection(), tracer, system);
  return overriding(driver, 'acquireConnection', acquireConnection);
}

/**
 * `target` with one method replaced; every other member is the target's own, called on the
 * target (so its private fields and symbol-keyed methods keep working).
 */
function overriding<T extends object>(target: T, name: keyof T, replacement: unknown): T {
  return new Proxy(target, {
    get(object, property) {
      if (property === name) return replacement;
      const value: unknown = Reflect.get(object, property, object);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(object) : value;
    },
  });
}

function tracedConnection(
  connection: DatabaseConnection,
  tracer: Tracer,
  system: string,
): DatabaseConnection {
  const executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    const operation = operationOf(query.sql);
    const attributes = {
      'db.system.name': system,
      'db.operation.name': operation,
      'db.query.text': query.sql,
    };
    return inDatabaseSpan(tracer, operation, attributes, () => connection.executeQuery<R>(query));
  };
  return overriding(connection, 'executeQuery', executeQuery);
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
