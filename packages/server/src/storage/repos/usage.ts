import type { Kysely } from 'kysely';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { UsageRepo } from '../../domain/usage/ports.js';
import type { Database } from '../schema.js';
import { toUsageEventRow } from '../tables/usage-events.js';
import { GRANULARITIES, toUsageRollupRows, USAGE_ROLLUP_KEY } from '../tables/usage-rollups.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createUsageRepo(db: Kysely<Database>): UsageRepo {
  return {
    /**
     * Stores the event and adds it to its month, day and hour rollups in one more statement, so
     * usage queries never scan events. Throws UniqueViolation (usage_events_meter_source_id_key)
     * when the source was already counted, and BillingPeriodClosed when its month is invoiced.
     * Call it inside store.transaction: the rollup rows stay locked until commit.
     */
    async insert(e) {
      const row = toUsageEventRow(e);
      await mapUniqueViolation(() => db.insertInto('usage_events').values(row).execute());
      const counted = await db
        .insertInto('usage_rollups')
        .values(toUsageRollupRows(e))
        .onConflict((oc) =>
          oc
            .columns(USAGE_ROLLUP_KEY)
            .doUpdateSet((eb) => ({
              quantity: eb('usage_rollups.quantity', '+', eb.ref('excluded.quantity')),
            }))
            .where('usage_rollups.sealed', '=', 0),
        )
        .returning('granularity')
        .execute();
      if (counted.length !== GRANULARITIES.length) throw new BillingPeriodClosed(e.occurredAt);
    },
  };
}
