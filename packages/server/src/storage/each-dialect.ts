/**
 * The helpers every behavioural suite starts from, beside the dialect list (testing.ts), so that
 * suites under src/ and under test/ share them (test/support/each-dialect.ts re-exports them):
 * - `describeEachDialect(name, fn)` runs one suite on SQLite and on PostgreSQL. The PostgreSQL half
 *   follows `pgAvailable()`: skipped with a printed reason on a machine without PostgreSQL, a
 *   failure in CI (CI=true), never a silent skip.
 * - `startedForSuite(start, stop)` starts something before the suite's tests and stops it after
 *   them, returning a handle that forwards to the started value (so tests write `s.request(...)`).
 * - `useTestStore(dialect)`: a fresh, migrated store for the suite, cleaned up after it.
 * Test-only: the build leaves this file out (packages/server/tsconfig.json).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { Dialect } from './open-database.js';
import { DIALECTS, openTestStore, pgAvailable, type TestStore } from './testing.js';

/** Checked once per test file (each file runs in its own process). */
const postgresReady = await pgAvailable();

/** Whether the PostgreSQL half runs on this machine (for suites that need to say so). */
export function dialectAvailable(dialect: Dialect): boolean {
  return dialect === 'sqlite' || postgresReady;
}

/**
 * `describe(\`${name} on ${dialect}\`)` for each dialect. `name` may also be a function of the
 * dialect, for suites whose titles put it elsewhere.
 */
export function describeEachDialect(
  name: string | ((dialect: Dialect) => string),
  fn: (dialect: Dialect) => void,
): void {
  for (const dialect of DIALECTS) {
    const title = typeof name === 'string' ? `${name} on ${dialect}` : name(dialect);
    describe.skipIf(!dialectAvailable(dialect))(title, () => fn(dialect));
  }
}

/**
 * Starts `start()` in a beforeAll and `stop` in an afterAll of the enclosing suite. The returned
 * object forwards every property to the started value; reading it before the suite starts throws.
 */
export function startedForSuite<T extends object>(
  start: () => Promise<T>,
  stop: (value: T) => Promise<void>,
): T {
  let current: T | undefined;
  beforeAll(async () => {
    current = await start();
  });
  afterAll(async () => {
    if (current !== undefined) await stop(current);
    current = undefined;
  });
  const started = (): T => {
    if (current === undefined) throw new Error('used outside the suite that started it');
    return current;
  };
  return new Proxy({} as T, {
    get: (_target, property) => {
      const value = Reflect.get(started(), property) as unknown;
      return typeof value === 'function' ? (value as () => unknown).bind(started()) : value;
    },
    set: (_target, property, value) => Reflect.set(started(), property, value),
    has: (_target, property) => Reflect.has(started(), property),
  });
}

/**
 * A fresh, migrated store (a SQLite temp file or a PostgreSQL schema) opened before the enclosing
 * suite's tests and deleted after them. Call it at the top of a `describe` body.
 */
export function useTestStore(dialect: Dialect, extra: Parameters<typeof openTestStore>[1] = {}): TestStore {
  return startedForSuite(
    () => openTestStore(dialect, extra),
    (db) => db.cleanup(),
  );
}
