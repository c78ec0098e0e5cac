import { PostgresAdapter, type Kysely } from 'kysely';
import type { WebhookFanOutRepo } from '../../domain/webhooks/ports.js';
import type { Database } from '../schema.js';
import { parseJson } from './rows.js';

/** The fan-out's side of outbox_events: rows with fanned_out_at still null (a partial index). */
export function createWebhookFanOutRepo(db: Kysely<Database>): WebhookFanOutRepo {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const pending = () => db.selectFrom('outbox_events').where('fanned_out_at', 'is', null);
  return {
    async hasPending() {
      return (await pending().select('id').limit(1).executeTakeFirst()) !== undefined;
    },
    async lockPending(limit) {
      const rows = await pending()
        .selectAll()
        .orderBy('created_at')
        .orderBy('id')
        .limit(limit)
        .$if(postgres, (qb) => qb.forUpdate().skipLocked())
        .execute();
      return rows.map((row) => ({
        id: row.id,
        tenantId: row.tenant_id,
        type: row.type,
        payload: parseJson<unknown>(row.payload),
        createdAt: row.created_at,
      }));
    },
    async markFannedOut(ids, at) {
      if (ids.length === 0) return;
      await db.updateTable('outbox_events').set({ fanned_out_at: at }).where('id', 'in', ids).execute();
    },
  };
}
