/**
 * The SQLite writer thread and its gate, on a real file with a real second connection: programs
 * commit before they are answered, a program's `undo` or failure leaves the others' writes, the
 * main connection's writes wait at the gate instead of at SQLite's lock, and an outage is a 503.
 */
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import SqliteDatabase from './sqlite-driver.js';
import { sql, type Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import type { Program } from './hot-path/sqlite-program.js';
import { openDatabase } from './open-database.js';
import type { Database } from './schema.js';
import { CHECKPOINT_BACKSTOP_FRAMES } from './sqlite-checkpointer.js';
import { createSqliteGroupCommit } from './sqlite-group-commit.js';
import { createSqliteWriter, type SqliteWriter } from './sqlite-writer.js';

const insert = (name: string): Program => ({
  steps: [{ sql: 'insert into items (name) values (?)', params: [name] }],
});

describe('SQLite writer thread', () => {
  let scratch: string;
  let path: string;
  let db: Kysely<Database>;
  let writer: SqliteWriter;
  let observer: BetterSqlite3.Database;

  const committed = () =>
    (observer.prepare('select name from items order by name').all() as { name: string }[]).map((r) => r.name);

  beforeEach(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'presence-writer-'));
    path = join(scratch, 'presence.sqlite');
    const handle = await openDatabase({ sqlitePath: path, sqliteBusyTimeoutMs: 100 });
    db = handle.db;
    writer = handle.sqliteWriter!;
    await sql`create table items (name text primary key, n integer not null default 0)`.execute(db);
    observer = new SqliteDatabase(path, { timeout: 100 });
  });

  afterEach(async () => {
    observer.close();
    await db.destroy();
    await rm(scratch, { recursive: true, force: true });
  });

  it('answers each program after its COMMIT, with its own outcome', async () => {
    const results = await Promise.all(['a', 'b', 'c'].map((name) => writer.run(insert(name))));
    expect(results).toEqual(Array(3).fill({ outcome: null, undo: false, kept: null, rows: [] }));
    expect(committed()).toEqual(['a', 'b', 'c']);
  });

  it("keeps its savepoints' journal in memory, where the main connection keeps SQLite's default", async () => {
    const tempStore: Program = { steps: [{ sql: 'pragma temp_store', params: [], returns: true }] };
    expect((await writer.read(tempStore)).rows).toEqual([{ temp_store: 2 }]);
    const main = await sql<{ temp_store: number }>`pragma temp_store`.execute(db);
    expect(main.rows).toEqual([{ temp_store: 0 }]);
  });

  it('leaves the copy of the WAL into the file to the checkpoint thread, after commits of either connection', async () => {
    const frames: Program = { steps: [{ sql: 'pragma wal_autocheckpoint', params: [], returns: true }] };
    expect((await writer.read(frames)).rows).toEqual([{ wal_autocheckpoint: CHECKPOINT_BACKSTOP_FRAMES }]);
    const main = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(main.rows).toEqual([{ wal_autocheckpoint: CHECKPOINT_BACKSTOP_FRAMES }]);
    // Far below the backstop, and SQLite's default of 1,000 frames, so only the thread copies:
    // the file grows once it has.
    const fileGrows = async (write: () => Promise<unknown>) => {
      // Past the checkpoint that earlier writes marked (20 ms after them), so that it is not counted.
      await delay(300);
      const before = statSync(path).size;
      await write();
      const deadline = Date.now() + 5000;
      while (statSync(path).size <= before && Date.now() < deadline) await delay(10);
      return statSync(path).size - before;
    };
    const wide = (name: string): Program => ({
      steps: [{ sql: 'insert into items (name) values (?)', params: [name + 'x'.repeat(20_000)] }],
    });
    expect(
      await fileGrows(() => Promise.all(['a', 'b', 'c'].map((n) => writer.run(wide(n))))),
    ).toBeGreaterThan(0);
    expect(
      await fileGrows(() => sql`insert into items (name) values (${'d' + 'x'.repeat(20_000)})`.execute(db)),
    ).toBeGreaterThan(0);
  });

  it("keeps what a stopped program wrote, takes back an undone one's, and keeps a value for a later step", async () => {
    const stopped: Program = {
      steps: [
        { sql: 'insert into items (name) values (?)', params: ['kept'] },
        {
          sql: "update items set n = 1 where name = 'absent'",
          params: [],
          expect: 'changed',
          otherwise: { outcome: 'lost', undo: false },
        },
      ],
    };
    const undone: Program = {
      steps: [
        { sql: 'insert into items (name) values (?)', params: ['undone'] },
        {
          sql: "select name from items where name = 'absent'",
          params: [],
          expect: 'a row',
          otherwise: { outcome: 'full', undo: true },
        },
      ],
    };
    const counted: Program = {
      steps: [
        {
          sql: "insert into items (name, n) values ('seq', 41) returning n + 1 as next",
          params: [],
          keep: 'next',
        },
        {
          sql: 'insert into items (name, n) values (?, ?) returning name, n',
          params: ['after', null],
          useKept: 1,
          returns: true,
        },
      ],
    };
    const [a, b, c] = await Promise.all([writer.run(stopped), writer.run(undone), writer.run(counted)]);
    expect(a).toMatchObject({ outcome: 'lost', undo: false });
    expect(b).toMatchObject({ outcome: 'full', undo: true });
    expect(c).toEqual({ outcome: null, undo: false, kept: 42, rows: [{ name: 'after', n: 42 }] });
    expect(committed()).toEqual(['after', 'kept', 'seq']);
  });

  it('fails only the program whose statement failed, with the driver code; the rest commit', async () => {
    await writer.run(insert('taken'));
    const results = await Promise.allSettled([
      writer.run(insert('x')),
      writer.run(insert('taken')),
      writer.run(insert('y')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
    expect(committed()).toEqual(['taken', 'x', 'y']);
  });

  it('lets the main connection write while programs stream in, never meeting the lock', async () => {
    // busy_timeout 0: a write of either connection that met the other's lock would fail at once.
    const own = await openDatabase({ sqlitePath: join(scratch, 'no-wait.sqlite'), sqliteBusyTimeoutMs: 0 });
    try {
      await sql`create table items (name text primary key)`.execute(own.db);
      const group = createSqliteGroupCommit(own.db, own.sqliteWriter);
      await own.sqliteWriter!.run(insert('started'));
      const work: Promise<unknown>[] = [];
      for (let i = 0; i < 300; i++) {
        work.push(own.sqliteWriter!.run(insert(`w${i}`)));
        if (i % 10 === 0) {
          // While the thread commits what it was sent so far.
          await new Promise((resolve) => setTimeout(resolve, 1));
          work.push(group.run((conn) => sql`insert into items (name) values (${`g${i}`})`.execute(conn)));
          work.push(sql`insert into items (name) values (${`a${i}`})`.execute(own.db));
        }
      }
      await Promise.all(work);
      const { rows } = await sql<{ n: number }>`select count(*) as n from items`.execute(own.db);
      expect(rows[0]?.n).toBe(361);
    } finally {
      await own.db.destroy();
    }
  });

  it('holds programs sent while the main connection is inside the gate, and sends them at leave', async () => {
    await writer.enter();
    const held = writer.run(insert('held'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(committed()).toEqual([]);
    writer.leave();
    await held;
    expect(committed()).toEqual(['held']);
  });

  it('answers a read outside any transaction: it sees only programs already answered, and is not held at the gate', async () => {
    const select: Program = {
      steps: [{ sql: 'select name from items order by name', params: [], returns: true }],
    };
    const answered = new Set<unknown>();
    const work: Promise<unknown>[] = [];
    const seen: unknown[][] = [];
    const unanswered: unknown[] = [];
    for (let i = 0; i < 200; i++) {
      const name = `p${String(i).padStart(3, '0')}`;
      const program = writer.run(insert(name)).then(() => answered.add(name));
      work.push(program);
      if (i % 5 === 0) {
        // A read run inside a batch's transaction would see programs whose COMMIT is still to come.
        const read = writer.read(select).then(({ rows }) => {
          seen.push(rows.map((r) => r.name));
          unanswered.push(...rows.map((r) => r.name).filter((name) => !answered.has(name)));
        });
        work.push(read);
      }
      if (i % 50 === 49) await program;
    }
    await Promise.all(work);
    expect(seen).toHaveLength(40);
    expect(unanswered).toEqual([]);
    expect(seen.some((names) => names.length > 0 && names.length < 200)).toBe(true);
    // Not held at the gate, nor by a write lock held elsewhere (WAL readers do not wait).
    await writer.enter();
    observer.exec('begin immediate');
    try {
      expect((await writer.read(select)).rows).toHaveLength(200);
    } finally {
      observer.exec('rollback');
      writer.leave();
    }
  });

  it('lets the main connection in while reads stream without a pause: the gate waits for programs only', async () => {
    const select: Program = {
      steps: [{ sql: 'select count(*) as n from items', params: [], returns: true }],
    };
    await writer.run(insert('a'));
    let reading = true;
    // Two overlapping chains: one read is always in flight.
    const chain = async () => {
      while (reading) await writer.read(select);
    };
    const chains = [chain(), new Promise((resolve) => setTimeout(resolve, 1)).then(chain)];
    await new Promise((resolve) => setTimeout(resolve, 20));
    const entered = await Promise.race([
      writer.enter().then(() => 'entered'),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1000)),
    ]);
    reading = false;
    await Promise.all(chains);
    expect(entered).toBe('entered');
    writer.leave();
  });

  it('reports a lock held elsewhere past busy_timeout as a 503, and works again once it is free', async () => {
    observer.exec('begin immediate');
    const refused = await writer.run(insert('late')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'service_unavailable' });
    observer.exec('rollback');
    await writer.run(insert('later'));
    expect(committed()).toEqual(['later']);
  });

  it('fails what a thread held when it dies inside a transaction as a 503, keeps none of it, and starts a new one', async () => {
    const dying = new URL('../../test/fixtures/dying-writer-thread.js', import.meta.url);
    const crashing = createSqliteWriter(path, 100, undefined, dying);
    try {
      const results = await Promise.allSettled([crashing.run(insert('a')), crashing.run(insert('b'))]);
      for (const result of results) {
        expect(result.status).toBe('rejected');
        expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'service_unavailable' });
      }
      expect(committed()).toEqual([]);
      // The dead thread's write lock went with it: the new thread writes at once.
      await crashing.run(insert('after'));
      expect(committed()).toEqual(['after']);
    } finally {
      await crashing.close();
    }
  });

  it('finishes what it was sent before the store closes, and refuses what comes after', async () => {
    const pending = writer.run(insert('last'));
    await db.destroy();
    await pending;
    expect(committed()).toEqual(['last']);
    await expect(writer.run(insert('too late'))).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
