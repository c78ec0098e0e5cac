/**
 * Group commit on a real SQLite file, watched from a second, independent connection: what that
 * connection can see is what is committed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import SqliteDatabase from './sqlite-driver.js';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import { openDatabase } from './open-database.js';
import type { Database } from './schema.js';
import {
  createSqliteGroupCommit,
  GROUP_COMMIT_MAX_MEMBERS,
  type GroupCommit,
} from './sqlite-group-commit.js';

// The test's own tables: the unit under test is the transaction mechanics, not the schema.
type TestDb = Kysely<Database>;

describe('SQLite group commit', () => {
  let scratch: string;
  let db: TestDb;
  let observer: BetterSqlite3.Database;
  let group: GroupCommit;

  const insert = (conn: TestDb, name: string) => sql`insert into items (name) values (${name})`.execute(conn);
  const committed = () =>
    (observer.prepare('select name from items order by name').all() as { name: string }[]).map((r) => r.name);

  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'presence-group-commit-'));
    const path = join(scratch, 'presence.sqlite');
    ({ db } = await openDatabase({ sqlitePath: path, sqliteBusyTimeoutMs: 100 }));
    await sql`create table owners (id integer primary key)`.execute(db);
    await sql`create table items (name text primary key, owner integer references owners (id))`.execute(db);
    observer = new SqliteDatabase(path, { timeout: 100 });
    group = createSqliteGroupCommit(db);
  });

  afterEach(async () => {
    observer.close();
    await db.destroy();
    await rm(scratch, { recursive: true, force: true });
  });

  it('runs the transactions waiting together in one transaction, each answered after its COMMIT', async () => {
    const seenByOthers: string[][] = [];
    const answered: string[] = [];
    const runs = Array.from({ length: 8 }, (_, i) =>
      group
        .run(async (conn) => {
          await insert(conn, `item-${i}`);
          seenByOthers.push(committed());
          return i;
        })
        .then((value) => {
          answered.push(`item-${value}`);
          // Every member is answered only once all of them are durable.
          expect(committed()).toHaveLength(8);
          return value;
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // While the batch ran, another connection saw none of it: one shared transaction.
    expect(seenByOthers.every((names) => names.length === 0)).toBe(true);
    expect(answered).toHaveLength(8);
  });

  it('a member that throws is rolled back to its savepoint; the others commit', async () => {
    const failure = new Error('member 2 refuses');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) =>
        group.run(async (conn) => {
          await insert(conn, `item-${i}`);
          if (i === 2) throw failure;
          return i;
        }),
      ),
    );
    expect(outcomes.map((o) => o.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((outcomes[2] as PromiseRejectedResult).reason).toBe(failure);
    expect(committed()).toEqual(['item-0', 'item-1', 'item-3', 'item-4']);
  });

  it('members see the writes of the members before them, as serial transactions would', async () => {
    const [first, second] = await Promise.allSettled([
      group.run((conn) => insert(conn, 'same')),
      group.run((conn) => insert(conn, 'same')),
    ]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    expect(String((second as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(committed()).toEqual(['same']);
  });

  it('a COMMIT that fails fails every member of the batch as an outage, and nothing is kept', async () => {
    // A deferred foreign key is checked at COMMIT: a real failing commit.
    const outcomes = await Promise.allSettled([
      group.run((conn) => insert(conn, 'fine')),
      group.run(async (conn) => {
        await sql`pragma defer_foreign_keys = on`.execute(conn);
        await sql`insert into items (name, owner) values ('orphan', 42)`.execute(conn);
      }),
      group.run((conn) => insert(conn, 'also-fine')),
    ]);
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const reason = (outcome as PromiseRejectedResult).reason as DomainError;
      expect(reason).toBeInstanceOf(DomainError);
      expect(reason.code).toBe('service_unavailable');
    }
    expect(committed()).toEqual([]);
    // The connection is usable again.
    await group.run((conn) => insert(conn, 'after'));
    expect(committed()).toEqual(['after']);
  });

  it('each member runs in its caller async context', async () => {
    const context = new AsyncLocalStorage<string>();
    const seen = await Promise.all(
      ['a', 'b', 'c'].map((name) => context.run(name, () => group.run(async () => context.getStore()))),
    );
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('when another connection keeps the write lock, the waiting members fail as an outage and later ones succeed', async () => {
    observer.exec('begin immediate');
    const outcomes = await Promise.allSettled([
      group.run((conn) => insert(conn, 'blocked-1')),
      group.run((conn) => insert(conn, 'blocked-2')),
    ]);
    observer.exec('rollback');
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      expect(((outcome as PromiseRejectedResult).reason as DomainError).code).toBe('service_unavailable');
    }
    await group.run((conn) => insert(conn, 'free'));
    expect(committed()).toEqual(['free']);
  });

  it('a queue longer than one batch is served by several batches, every member committed', async () => {
    const count = GROUP_COMMIT_MAX_MEMBERS * 2 + 3;
    const runs = Array.from({ length: count }, (_, i) =>
      group.run((conn) => insert(conn, `item-${String(i).padStart(4, '0')}`)),
    );
    await Promise.all(runs);
    expect(committed()).toHaveLength(count);
  });

  it('a member that waits on I/O keeps the batch open; members queued meanwhile join it', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const first = group.run(async (conn) => {
      await insert(conn, 'slow');
      await gate;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = group.run((conn) => insert(conn, 'queued'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(committed()).toEqual([]);
    release();
    await Promise.all([first, second]);
    expect(committed()).toEqual(['queued', 'slow']);
  });
});
