import type { Granularity } from '@presence/contract';
import type { Kysely } from 'kysely';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import { bucketStart } from '../../domain/billing/billing-period.js';
import type { UsageRepo } from '../../domain/usage/ports.js';
import type { Database } from '../schema.js';
import { toUsageEventRow } from '../tables/usage-events.js';
import { mapUniqueViolation } from '../unique-violation.js';

/** Month first: it carries the seal, and every transaction locks the buckets in the same order. */
const GRANULARITIES: readonly Granularity[] = ['month', 'day', 'hour'];

export function createUsageRepo(db: Kysely<Database>): UsageRepo {
  return {
    /**
     * Stores the event and adds it to its hour, day and month rollups in one more statement, so
     * usage queries never scan events. Throws UniqueViolation (usage_events_meter_source_id_key)
     * when the source was already counted, and BillingPeriodClosed when its month is invoiced.
     * Call it inside store.transaction: the rollup rows stay locked until commit.
     */
    async insert(e) {
      const row = toUsageEventRow(e);
      await mapUniqueViolation(() => db.insertInto('usage_events').values(row).execute());
      const counted = await db
        .insertInto('usage_rollups')
        .values(
          GRANULARITIES.map((granularity) => ({
            tenant_id: e.tenantId,
            granularity,
            bucket_start: bucketStart(granularity, e.occurredAt),
            meter: e.meter,
            quantity: e.quantity,
            sealed: 0,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'granularity', 'bucket_start', 'meter'])
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
