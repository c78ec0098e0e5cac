import type { Kysely } from 'kysely';
import type { UsageRepo } from '../../domain/ports.js';
import type { Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createUsageRepo(db: Kysely<Database>): UsageRepo {
  return {
    /** Throws UniqueViolation (usage_events_meter_source_id_key) when the source was already counted. */
    async insert(e) {
      const row = {
        id: e.id,
        tenant_id: e.tenantId,
        meter: e.meter,
        quantity: e.quantity,
        occurred_at: e.occurredAt,
        source_id: e.sourceId,
      };
      await mapUniqueViolation(() => db.insertInto('usage_events').values(row).execute());
    },
  };
}
