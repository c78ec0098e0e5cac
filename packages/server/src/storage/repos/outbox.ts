import type { Kysely } from 'kysely';
import type { OutboxRepo } from '../../domain/events/ports.js';
import type { Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createOutboxRepo(db: Kysely<Database>): OutboxRepo {
  return {
    /** The payload is stored as JSON text; `undefined` is stored as null. */
    async insert(e) {
      const row = {
        id: e.id,
        tenant_id: e.tenantId,
        type: e.type,
        payload: JSON.stringify(e.payload ?? null),
        created_at: e.createdAt,
      };
      await mapUniqueViolation(() => db.insertInto('outbox_events').values(row).execute());
    },
  };
}
