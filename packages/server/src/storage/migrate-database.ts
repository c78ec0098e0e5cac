import { pendingMigrations, runMigrations, type MigrationReport } from './migrations/run-migrations.js';
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

/**
 * For replicas that start with migrations off (PRESENCE_MIGRATE_ON_START=false, the migration Job
 * runs `presence migrate`): refuses to start on a schema this build would still have to migrate.
 */
export async function assertSchemaCurrent(options: StoreOptions): Promise<void> {
  const handle = await openDatabase({ ...options, pgPoolSize: 1 });
  try {
    const pending = await pendingMigrations(handle);
    if (pending.length > 0)
      throw new Error(
        `the database schema is behind this build (${pending.length} pending, first ${pending[0]}): run \`presence migrate\` (the migration Job) first, or set PRESENCE_MIGRATE_ON_START=true`,
      );
  } finally {
    await handle.db.destroy();
  }
}
