import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';

/**
 * Increments a per-tenant counter and returns the new value, creating it at 1. One statement in
 * both dialects; the row stays locked until the caller's transaction ends, so values are handed
 * out in commit order and a rolled-back transaction leaves no gap.
 */
export async function nextCounterValue(
  db: Kysely<Database>,
  tenantId: string,
  name: string,
): Promise<number> {
  const row = await db
    .insertInto('tenant_counters')
    .values({ tenant_id: tenantId, name, value: 1 })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'name']).doUpdateSet({ value: sql<number>`tenant_counters.value + 1` }),
    )
    .returning('value')
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

export async function currentCounterValue(
  db: Kysely<Database>,
  tenantId: string,
  name: string,
): Promise<number> {
  const row = await db
    .selectFrom('tenant_counters')
    .select('value')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
  return row === undefined ? 0 : Number(row.value);
}
