import { runMigrations, type MigrationReport } from './migrations/run-migrations.js';
import { openDatabase, type StoreOptions } from './open-database.js';

export type { MigrationReport } from './migrations/run-migrations.js';

/**
 * Brings the database named by `options` to the current schema and closes its connection.
 * Idempotent, and safe when several processes run it at once. `openStore` never migrates:
 * call this first (`presence migrate`, or at start-up before `openStore`).
 */
export async function migrateDatabase(options: StoreOptions): Promise<MigrationReport> {
  const handle = await openDatabase({ ...options, pgPoolSize: 1 });
  try {
    return await runMigrations(handle);
  } finally {
    await handle.db.destroy();
  }
}
