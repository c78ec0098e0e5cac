import { sql, type Expression, type Kysely } from 'kysely';
import type { WebhookBacklog, WebhookBacklogRepo } from '../../domain/webhooks/ports.js';
import type { Database } from '../schema.js';

/**
 * What the metrics read at scrape time. Counts stop at `cap` (a capped subquery), so a huge
 * backlog costs at most `cap` index entries; the oldest times come from the first entry of a
 * partial index each (outbox_events_fan_out_idx, webhook_deliveries_pending_created_idx).
 */
export function createWebhookBacklogRepo(db: Kysely<Database>): WebhookBacklogRepo {
  const unfanned = () => db.selectFrom('outbox_events').where('fanned_out_at', 'is', null);
  const pending = () => db.selectFrom('webhook_deliveries').where('status', '=', 'pending');
  const count = async (rows: Expression<unknown>) => {
    const result = await sql<{ n: number | string }>`select count(*) as n from (${rows}) as capped`.execute(
      db,
    );
    return Number(result.rows[0]?.n ?? 0);
  };
  return {
    async measure(cap): Promise<WebhookBacklog> {
      const outboxPending = await count(
        unfanned()
          .select(sql<number>`1`.as('one'))
          .limit(cap),
      );
      const deliveriesPending = await count(
        pending()
          .select(sql<number>`1`.as('one'))
          .limit(cap),
      );
      const oldestEvent = await unfanned()
        .select('created_at')
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      const oldestDelivery = await pending()
        .select('created_at')
        .orderBy('created_at')
        .limit(1)
        .executeTakeFirst();
      const times = [oldestEvent?.created_at, oldestDelivery?.created_at].filter((t) => t !== undefined);
      return { outboxPending, deliveriesPending, oldestPendingAt: times.length ? Math.min(...times) : null };
    },
  };
}
