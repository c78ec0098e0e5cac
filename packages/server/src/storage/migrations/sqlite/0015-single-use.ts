/**
 * SQLite 0015: `api_keys.rotated_to`, the id of the key a rotation issued (null: never rotated).
 * A key is rotated once: the rotation sets it with a compare-and-set (`… WHERE rotated_to IS NULL`),
 * so a second rotation, concurrent or later, finds it set and is refused. Same shape as PostgreSQL 0015.
 */
import { sql, type QueryExecutorProvider } from 'kysely';

export async function up(db: QueryExecutorProvider): Promise<void> {
  await sql.raw(`ALTER TABLE api_keys ADD COLUMN rotated_to TEXT`).execute(db);
}
