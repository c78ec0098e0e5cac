/**
 * The checkpoint thread's own life (sqlite-checkpointer.ts): a thread that stopped on its own is
 * started again by a later mark, at most once a second, and then copies the WAL into the file.
 * (Its work beside the writer thread is in sqlite-writer.test.ts.) The restart rule runs on a clock
 * the test sets, and the test waits for what it can observe (the thread's exit, the file growing),
 * never for a fixed time.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import SqliteDatabase from './sqlite-driver.js';
import { afterAll, expect, it } from 'vitest';
import { createSqliteCheckpointer } from './sqlite-checkpointer.js';

const scratch = mkdtempSync(join(tmpdir(), 'presence-checkpointer-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function walDatabase(path: string) {
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  // Only the thread may copy the WAL into the file: its size tells when it has.
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table items (name text)');
  return db;
}

it('starts a thread that stopped on its own again at a later mark, at most once a second', async () => {
  // The thread cannot open a file in a folder that does not exist yet: it stops at once.
  const folder = join(scratch, 'later');
  const path = join(folder, 'presence.sqlite');
  let clock = 0;
  const checkpointer = createSqliteCheckpointer(path, 1000, () => clock);
  checkpointer.due();
  expect(checkpointer.running()).toBe(true);
  await checkpointer.stopped();
  expect(checkpointer.running()).toBe(false);
  mkdirSync(folder);
  const db = walDatabase(path);
  const write = () => db.prepare('insert into items (name) values (?)').run('x'.repeat(50_000));
  const fileSize = () => statSync(path).size;
  try {
    // A mark within the second after the first start starts no thread, so no checkpoint can run.
    write();
    const before = fileSize();
    clock = 999;
    checkpointer.due();
    expect(checkpointer.running()).toBe(false);

    // A mark a second after the first start starts a thread, which checkpoints.
    clock = 1000;
    write();
    checkpointer.due();
    expect(checkpointer.running()).toBe(true);
    const deadline = Date.now() + 10_000;
    // The checkpoint copies page by page: wait until the file holds both rows, not just more.
    expect(before).toBeLessThan(50_000);
    while (fileSize() <= 100_000 && Date.now() < deadline) await delay(10);
    // The WAL is now copied: the file holds both rows.
    expect(fileSize()).toBeGreaterThan(100_000);
  } finally {
    await checkpointer.close();
    db.close();
  }
});

it('closes with no thread running, and starts none after closing', async () => {
  const path = join(scratch, 'closed.sqlite');
  const db = walDatabase(path);
  const checkpointer = createSqliteCheckpointer(path, 1000);
  await checkpointer.close();
  db.prepare('insert into items (name) values (?)').run('x'.repeat(50_000));
  const before = statSync(path).size;
  checkpointer.due();
  expect(checkpointer.running()).toBe(false);
  await checkpointer.stopped();
  expect(statSync(path).size).toBe(before);
  db.close();
});
