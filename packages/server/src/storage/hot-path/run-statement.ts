/** How the hot path runs its compiled texts (statements.ts) on either dialect, and shared pieces. */
import { CompiledQuery, type Kysely } from 'kysely';
import { bucketStart } from '../../domain/billing/billing-period.js';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { UsageEventRecord } from '../../domain/usage/ports.js';
import type { Dialect } from '../open-database.js';
import type { Database } from '../schema.js';
import * as S from './statements.js';

export type Run = <R>(text: string, values: readonly unknown[]) => Promise<{ rows: R[]; changed: number }>;

/** Compiled once per text: SQLite's statement cache and PostgreSQL's named statements key on it. */
export function runner(db: Kysely<Database>, dialect: Dialect): Run {
  return async <R>(text: string, values: readonly unknown[]) => {
    let query = text;
    let parameters = values;
    if (dialect === 'sqlite') {
      const converted = S.SQLITE_FORMS.get(text);
      if (converted === undefined) throw new Error('not a hot-path statement');
      query = converted.text;
      parameters = converted.order(values);
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(query, [...parameters]));
    return { rows: result.rows, changed: Number(result.numAffectedRows ?? 0n) };
  };
}

/** The month, day and hour buckets of a usage event, month first. */
export function buckets(at: number): [number, number, number] {
  return [bucketStart('month', at), bucketStart('day', at), bucketStart('hour', at)];
}

function usageValues(u: UsageEventRecord) {
  return [u.id, u.tenantId, u.meter, u.quantity, u.occurredAt, u.sourceId];
}

/** SQLite: the usage event and its rollups; BillingPeriodClosed when its month is sealed. */
export async function sqliteUsage(run: Run, u: UsageEventRecord): Promise<void> {
  await run(S.INSERT_USAGE, usageValues(u));
  const counted = await run(S.ADD_TO_ROLLUPS, [u.tenantId, u.meter, u.quantity, ...buckets(u.occurredAt)]);
  if (counted.rows.length !== 3) throw new BillingPeriodClosed(u.occurredAt);
}

/**
 * PostgreSQL: a settle or creation statement fails as a whole when one of its rollups is sealed
 * (statements.ts ALL_ROLLUPS_OR_FAIL); that failure is BillingPeriodClosed, and nothing was written.
 */
export async function pgUnlessPeriodClosed<T>(occurredAt: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown }).code === S.PG_ROLLUP_SEALED_SQLSTATE)
      throw new BillingPeriodClosed(occurredAt);
    throw error;
  }
}
