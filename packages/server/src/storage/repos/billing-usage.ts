import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../open-database.js';
import { currentTraceParent } from './outbox.js';
import type { QuotaRepo, UsageRollupRepo } from '../../domain/billing/ports.js';
import type { Database } from '../schema.js';
import { changedAny } from './rows.js';
import { OUTBOX_EVENT_COLUMNS, toOutboxEventRow } from '../tables/outbox-events.js';
import { QUOTA_COUNTER_COLUMNS, toQuotaCounter } from '../tables/quota-counters.js';
import { toSealedMonthRows, USAGE_ROLLUP_KEY } from '../tables/usage-rollups.js';

export function createUsageRollupRepo(db: Kysely<Database>): UsageRollupRepo {
  return {
    /** A range scan of the primary key (tenant, granularity, bucket_start, meter). */
    async list(tenantId, granularity, from, to) {
      const rows = await db
        .selectFrom('usage_rollups')
        .select(['bucket_start', 'meter', 'quantity'])
        .where('tenant_id', '=', tenantId)
        .where('granularity', '=', granularity)
        .where('bucket_start', '>=', from)
        .where('bucket_start', '<', to)
        .orderBy('bucket_start')
        .execute();
      return rows.map((r) => ({ start: r.bucket_start, meter: r.meter, quantity: r.quantity }));
    },
    /**
     * One upsert: on PostgreSQL it waits for transactions holding a month row (or inserting one)
     * and returns the quantity they committed; from then on the row refuses increments.
     */
    async sealMonth(tenantId, monthStart, meters) {
      const rows = await db
        .insertInto('usage_rollups')
        .values(toSealedMonthRows(tenantId, monthStart, meters))
        .onConflict((oc) => oc.columns(USAGE_ROLLUP_KEY).doUpdateSet({ sealed: 1 }))
        .returning(['meter', 'quantity'])
        .execute();
      return Object.fromEntries(rows.map((r) => [r.meter, r.quantity]));
    },
  };
}

export function createQuotaRepo(db: Kysely<Database>, dialect: Dialect): QuotaRepo {
  return {
    /** The counter a challenge creation takes from is the hot path's (tables/quota-counters.ts TAKE_QUOTA). */
    async get(tenantId, periodStart) {
      const row = await db
        .selectFrom('quota_counters')
        .select(QUOTA_COUNTER_COLUMNS)
        .where('tenant_id', '=', tenantId)
        .where('period_start', '=', periodStart)
        .executeTakeFirst();
      return row && toQuotaCounter(row);
    },
    /**
     * The marker and its outbox event, both or neither: on PostgreSQL one statement (so it may run
     * on its own, outside a transaction); on SQLite two, inside the caller's transaction.
     */
    async announceThreshold(tenantId, periodStart, threshold, event) {
      const column = threshold === 80 ? 'threshold_80_at' : 'threshold_100_at';
      const row = toOutboxEventRow({ ...event, tenantId }, currentTraceParent());
      if (dialect === 'postgres') {
        const result = await sql`
          with marked as (
            update quota_counters set ${sql.ref(column)} = ${event.createdAt}
             where tenant_id = ${tenantId} and period_start = ${periodStart} and ${sql.ref(column)} is null
            returning 1)
          insert into outbox_events (${sql.join(OUTBOX_EVENT_COLUMNS.map((c) => sql.ref(c)))})
          select ${sql.join(OUTBOX_EVENT_COLUMNS.map((c) => sql.val(row[c])))} from marked`.execute(db);
        return Number(result.numAffectedRows ?? 0n) > 0;
      }
      const marked = await db
        .updateTable('quota_counters')
        .set({ [column]: event.createdAt })
        .where('tenant_id', '=', tenantId)
        .where('period_start', '=', periodStart)
        .where(column, 'is', null)
        .executeTakeFirst();
      if (!changedAny(marked)) return false;
      await db.insertInto('outbox_events').values(row).execute();
      return true;
    },
  };
}
