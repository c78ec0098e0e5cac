/**
 * Online SQLite backup with SQLite's own backup API (through better-sqlite3): a consistent copy
 * of the database while the service keeps running, with no sqlite3 binary needed. The copy is a
 * standalone database file (not WAL), ready to be used as PRESENCE_DATA_DIR/presence.sqlite.
 */
import { existsSync } from 'node:fs';
import SqliteDatabase from './sqlite-driver.js';

export interface BackupResult {
  /** Database pages copied. */
  pages: number;
}

export async function backupSqlite(sourcePath: string, targetPath: string): Promise<BackupResult> {
  if (!existsSync(sourcePath)) throw new Error(`no SQLite database at ${sourcePath}`);
  if (existsSync(targetPath)) throw new Error(`${targetPath} exists; back up to a new file`);
  const source = new SqliteDatabase(sourcePath, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const { totalPages } = await source.backup(targetPath);
    const copy = new SqliteDatabase(targetPath);
    try {
      const check: unknown = copy.pragma('integrity_check', { simple: true });
      if (check !== 'ok') throw new Error(`the backup failed its integrity check: ${String(check)}`);
      copy.pragma('journal_mode = DELETE');
    } finally {
      copy.close();
    }
    return { pages: totalPages };
  } finally {
    source.close();
  }
}
