import type { QueryExecutorProvider } from 'kysely';

/** A forward-only schema change: raw SQL of one dialect, applied once, in order of `id`. */
export interface Migration {
  id: string;
  up(db: QueryExecutorProvider): Promise<void>;
}
