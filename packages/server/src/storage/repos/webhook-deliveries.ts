import { PostgresAdapter, sql, type Kysely } from 'kysely';
import type { WebhookAttemptRecord, WebhookDeliveryRepo } from '../../domain/webhooks/ports.js';
import type { Database } from '../schema.js';
import { changedAny } from './rows.js';
import { loadClaimed } from './webhook-claimed.js';
import { attemptRow, deliveryRow, toAttempt, toDelivery } from './webhook-rows.js';

/** Rows per multi-row INSERT / IN list: far below both drivers' parameter limits. */
const CHUNK = 200;
const PENDING = sql.lit('pending');

export function createWebhookDeliveryRepo(db: Kysely<Database>): WebhookDeliveryRepo {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    async insertMany(rows) {
      for (let i = 0; i < rows.length; i += CHUNK) {
        await db
          .insertInto('webhook_deliveries')
          .values(rows.slice(i, i + CHUNK).map(deliveryRow))
          .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
          .execute();
      }
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toDelivery(row);
    },
    async listForEndpoint(tenantId, endpointId, filter, page) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('endpoint_id', '=', endpointId)
        .$if(filter.status !== undefined, (qb) => qb.where('status', '=', filter.status!))
        .$if(page.afterId !== undefined, (qb) => qb.where('id', '<', page.afterId!))
        .orderBy('id', 'desc')
        .limit(page.limit)
        .execute();
      return rows.map(toDelivery);
    },
    async attemptsOf(deliveryIds) {
      const out: WebhookAttemptRecord[] = [];
      for (let i = 0; i < deliveryIds.length; i += CHUNK) {
        const rows = await db
          .selectFrom('webhook_attempts')
          .selectAll()
          .where('delivery_id', 'in', deliveryIds.slice(i, i + CHUNK))
          .orderBy('delivery_id')
          .orderBy('attempt')
          .execute();
        out.push(...rows.map(toAttempt));
      }
      return out;
    },
    /** An attempt number is written once: a late duplicate (e.g. after a lost lease) is dropped. */
    async insertAttempt(a) {
      await db
        .insertInto('webhook_attempts')
        .values(attemptRow(a))
        .onConflict((oc) => oc.columns(['delivery_id', 'attempt']).doNothing())
        .execute();
    },
    async lockClaims() {
      if (!postgres) return;
      const key = sql`hashtext('presence-webhook-claims:' || coalesce(current_schema(), ''))`;
      await sql`select pg_advisory_xact_lock(${key})`.execute(db);
    },
    async hasDue(now) {
      const row = await db
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('status', '=', PENDING)
        .where('next_attempt_at', '<=', now)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
    async inFlightByEndpoint(now) {
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('lease_token', 'is not', null)
        .where('status', '=', PENDING)
        .where('next_attempt_at', '>', now)
        .groupBy('endpoint_id')
        .execute();
      return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
    },
    async lockDue(now, excludeEndpoints, limit) {
      const rows = await db
        .selectFrom('webhook_deliveries as d')
        .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
        .selectAll('d')
        .where('d.status', '=', PENDING)
        .where('d.next_attempt_at', '<=', now)
        .where('e.enabled', '=', 1)
        .$if(excludeEndpoints.length > 0, (qb) => qb.where('d.endpoint_id', 'not in', excludeEndpoints))
        .orderBy('d.next_attempt_at')
        .orderBy('d.id')
        .limit(limit)
        .$if(postgres, (qb) => qb.forUpdate('d').skipLocked())
        .execute();
      return rows.map(toDelivery);
    },
    async lease(ids, token, now, until) {
      if (ids.length === 0) return;
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({
          lease_token: token,
          leased_at: now,
          next_attempt_at: until,
          attempt_count: eb('attempt_count', '+', 1),
          updated_at: now,
        }))
        .where('id', 'in', ids)
        .execute();
    },
    loadClaimed: (ids) => loadClaimed(db, ids),
    async complete(id, token, c) {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({
          status: c.status,
          next_attempt_at: c.nextAttemptAt,
          retry_count: c.retryCount,
          last_status_code: c.lastStatusCode,
          last_error: c.lastError,
          first_succeeded_at: c.firstSucceededAt,
          completed_at: c.completedAt,
          updated_at: c.updatedAt,
          lease_token: null,
          leased_at: null,
        })
        .where('id', '=', id)
        .where('lease_token', '=', token)
        .executeTakeFirst();
      return changedAny(result);
    },
    /** Leased rows whose lease is still running are left to their worker, which sees the endpoint disabled. */
    async failPending(endpointId, reason, now) {
      await db
        .updateTable('webhook_deliveries')
        .set({
          status: 'failed',
          next_attempt_at: null,
          last_error: reason,
          completed_at: now,
          updated_at: now,
        })
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', PENDING)
        .where((eb) => eb.or([eb('lease_token', 'is', null), eb('next_attempt_at', '<=', now)]))
        .execute();
    },
    async requeue(tenantId, id, now) {
      const row = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, retry_count: 0, completed_at: null, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where((eb) => eb.or([eb('lease_token', 'is', null), eb('next_attempt_at', '<=', now)]))
        .returningAll()
        .executeTakeFirst();
      return row && toDelivery(row);
    },
    async requeueFailed(tenantId, endpointId, since, now) {
      const result = await db
        .updateTable('webhook_deliveries')
        .set({ status: 'pending', next_attempt_at: now, retry_count: 0, completed_at: null, updated_at: now })
        .where('tenant_id', '=', tenantId)
        .where('endpoint_id', '=', endpointId)
        .where('status', '=', 'failed')
        .where('created_at', '>=', since)
        .executeTakeFirst();
      return Number(result.numUpdatedRows);
    },
  };
}
