/**
 * SQL spans for both dialects: a Kysely dialect whose connections open one CLIENT span around
 * every query (transaction statements included). better-sqlite3 has no maintained OpenTelemetry
 * instrumentation, and the pg one patches `require`, which an ESM service (and the CLI's
 * `presence serve`, which loads pg before tracing could start) does not go through reliably; one
 * wrapper at the driver gives both the same spans. Only used when tracing is on: with tracing
 * off the dialect is not wrapped at all. The SQL text carries placeholders, never values.
 */
import { SpanKind, SpanStatusCode, type Tracer } from '@opentelemetry/api';
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
  const acquire = driver.acquireConnection.bind(driver);
  return Object.assign(Object.create(driver) as Driver, {
    async acquireConnection() {
      return tracedConnection(await acquire(), tracer, system);
    },
  });
}

/** A proxy, so the driver's own (symbol-keyed, private) connection methods keep working. */
function tracedConnection(
  connection: DatabaseConnection,
  tracer: Tracer,
  system: string,
): DatabaseConnection {
  const executeQuery = <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
    const operation = /^\s*(\w+)/.exec(query.sql)?.[1]?.toUpperCase() ?? 'QUERY';
    const attributes = {
      'db.system.name': system,
      'db.operation.name': operation,
      'db.query.text': query.sql,
    };
    return tracer.startActiveSpan(operation, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      try {
        return await connection.executeQuery<R>(query);
      } catch (error) {
        span.recordException(error as Error);
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    });
  };
  return new Proxy(connection, {
    get(target, property) {
      if (property === 'executeQuery') return executeQuery;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
