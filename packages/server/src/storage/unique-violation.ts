/**
 * Maps the drivers' unique-constraint errors to the domain's UniqueViolation, by error code:
 * PostgreSQL 23505 (the constraint name comes from the error's `constraint` field) and SQLite
 * SQLITE_CONSTRAINT_UNIQUE / SQLITE_CONSTRAINT_PRIMARYKEY. SQLite reports no constraint name,
 * only "table.column" pairs, so the name is rebuilt from those with PostgreSQL's naming rule
 * (`<table>_<columns>_key`, `<table>_pkey`) that the migrations use explicitly: both dialects
 * report the same constraint string.
 */
import { UniqueViolation } from '../domain/ports.js';

const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);

interface DriverError {
  code?: unknown;
  constraint?: unknown;
  message?: unknown;
}

export function toUniqueViolation(error: unknown): UniqueViolation | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, constraint, message } = error as DriverError;
  if (code === '23505') {
    return new UniqueViolation(typeof constraint === 'string' ? constraint : 'unknown', { cause: error });
  }
  if (typeof code === 'string' && SQLITE_UNIQUE_CODES.has(code)) {
    const name = sqliteConstraintName(code, typeof message === 'string' ? message : '');
    return new UniqueViolation(name, { cause: error });
  }
  return undefined;
}

/** Runs a write and turns a unique-constraint failure into UniqueViolation; other errors pass through. */
export async function mapUniqueViolation<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw toUniqueViolation(error) ?? error;
  }
}

/** "UNIQUE constraint failed: credentials.tenant_id, credentials.credential_id" → credentials_tenant_id_credential_id_key */
function sqliteConstraintName(code: string, message: string): string {
  const columns = /constraint failed: (.+)$/.exec(message)?.[1]?.split(', ') ?? [];
  const pairs = columns.map((column) => column.split('.'));
  const table = pairs[0]?.[0];
  if (table === undefined) return 'unknown';
  if (code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return `${table}_pkey`;
  return [table, ...pairs.map((pair) => pair[1] ?? '')].join('_') + '_key';
}
