/**
 * The checkpoint thread's own life (sqlite-checkpointer.ts): a thread that stopped on its own is
 * started again by a later mark, at most once a second, and then copies the WAL into the file.
 * (Its work beside the writer thread is in sqlite-writer.test.ts.)
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

it('starts a thread that stopped on its own again at a later mark, at most once a second', async () => {
  // The thread cannot open a file in a folder that does not exist yet: it stops at once.
  const folder = join(scratch, 'later');
  const path = join(folder, 'presence.sqlite');
  const checkpointer = createSqliteCheckpointer(path, 1000);
  checkpointer.due();
  const firstStart = Date.now();
  // Time for the thread to load, fail and stop before the folder exists.
  await delay(400);
  mkdirSync(folder);
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  // Only the thread may copy the WAL into the file: its size tells when it has.
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table items (name text)');
  const write = () => db.prepare('insert into items (name) values (?)').run('x'.repeat(50_000));
  const fileSize = () => statSync(path).size;
  const grows = async (from: number, withinMs: number) => {
    const deadline = Date.now() + withinMs;
    while (fileSize() <= from && Date.now() < deadline) await delay(10);
    return fileSize() > from;
  };
  try {
    // A mark within the second after the first start: no new thread, so no checkpoint.
    write();
    const before = fileSize();
    checkpointer.due();
    expect(Date.now() - firstStart).toBeLessThan(1000);
    expect(await grows(before, 300)).toBe(false);

    // A mark a second after the first start starts a thread, which checkpoints.
    await delay(Math.max(0, 1000 - (Date.now() - firstStart)) + 50);
    write();
    checkpointer.due();
    expect(await grows(before, 5000)).toBe(true);
    // The WAL is now copied: the file holds both rows.
    expect(fileSize()).toBeGreaterThan(100_000);
  } finally {
    await checkpointer.close();
    db.close();
  }
});

it('closes with no thread running, and starts none after closing', async () => {
  const path = join(scratch, 'closed.sqlite');
  const db = new SqliteDatabase(path);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('create table items (name text)');
  const checkpointer = createSqliteCheckpointer(path, 1000);
  await checkpointer.close();
  db.prepare('insert into items (name) values (?)').run('x'.repeat(50_000));
  const before = statSync(path).size;
  checkpointer.due();
  await delay(300);
  expect(statSync(path).size).toBe(before);
  db.close();
});
