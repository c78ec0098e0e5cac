import type { Kysely } from 'kysely';
import type { WebhookEndpointRecord, WebhookEndpointRepo } from '../../domain/webhooks/ports.js';
import type { Database, WebhookEndpointsTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, fromFlag, parseJson, toFlag } from './rows.js';

export function createWebhookEndpointRepo(db: Kysely<Database>): WebhookEndpointRepo {
  const ofTenant = (tenantId: string) =>
    db.selectFrom('webhook_endpoints').selectAll().where('tenant_id', '=', tenantId);
  return {
    async insert(e) {
      await mapUniqueViolation(() => db.insertInto('webhook_endpoints').values(toRow(e)).execute());
    },
    async get(tenantId, id) {
      const row = await ofTenant(tenantId).where('id', '=', id).executeTakeFirst();
      return row && toEndpoint(row);
    },
    async list(tenantId, page) {
      const rows = await ofTenant(tenantId)
        .$if(page.afterId !== undefined, (qb) => qb.where('id', '>', page.afterId!))
        .orderBy('id')
        .limit(page.limit)
        .execute();
      return rows.map(toEndpoint);
    },
    async update(tenantId, id, change, expectedSecretSealed) {
      const row = await db
        .updateTable('webhook_endpoints')
        .set(changeToRow(change))
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .$if(expectedSecretSealed !== undefined, (qb) =>
          qb.where('secret_sealed', '=', expectedSecretSealed!),
        )
        .returningAll()
        .executeTakeFirst();
      return row && toEndpoint(row);
    },
    /** Deliveries and attempts go with it (ON DELETE CASCADE); usage already counted stays. */
    async delete(tenantId, id) {
      const result = await db
        .deleteFrom('webhook_endpoints')
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return changedAny({ numUpdatedRows: result.numDeletedRows });
    },
    async listEnabled(tenantIds) {
      if (tenantIds.length === 0) return [];
      const rows = await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('tenant_id', 'in', tenantIds)
        .where('enabled', '=', 1)
        .execute();
      return rows.map(toEndpoint);
    },
  };
}

function toRow(e: WebhookEndpointRecord): WebhookEndpointsTable {
  return {
    id: e.id,
    tenant_id: e.tenantId,
    url: e.url,
    description: e.description,
    events: JSON.stringify(e.events),
    enabled: toFlag(e.enabled),
    disabled_reason: e.disabledReason,
    disabled_at: e.disabledAt,
    secret_sealed: e.secretSealed,
    secret_created_at: e.secretCreatedAt,
    previous_secret_sealed: e.previousSecretSealed,
    previous_secret_expires_at: e.previousSecretExpiresAt,
    failing_since: e.failingSince,
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  };
}

function changeToRow(c: Parameters<WebhookEndpointRepo['update']>[2]): Partial<WebhookEndpointsTable> {
  const row: Partial<WebhookEndpointsTable> = { updated_at: c.updatedAt };
  if (c.url !== undefined) row.url = c.url;
  if (c.description !== undefined) row.description = c.description;
  if (c.events !== undefined) row.events = JSON.stringify(c.events);
  if (c.enabled !== undefined) row.enabled = toFlag(c.enabled);
  if (c.disabledReason !== undefined) row.disabled_reason = c.disabledReason;
  if (c.disabledAt !== undefined) row.disabled_at = c.disabledAt;
  if (c.secretSealed !== undefined) row.secret_sealed = c.secretSealed;
  if (c.secretCreatedAt !== undefined) row.secret_created_at = c.secretCreatedAt;
  if (c.previousSecretSealed !== undefined) row.previous_secret_sealed = c.previousSecretSealed;
  if (c.previousSecretExpiresAt !== undefined) row.previous_secret_expires_at = c.previousSecretExpiresAt;
  if (c.failingSince !== undefined) row.failing_since = c.failingSince;
  return row;
}

export function toEndpoint(row: WebhookEndpointsTable): WebhookEndpointRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    url: row.url,
    description: row.description,
    events: parseJson<string[]>(row.events),
    enabled: fromFlag(row.enabled),
    disabledReason: row.disabled_reason,
    disabledAt: row.disabled_at,
    secretSealed: row.secret_sealed,
    secretCreatedAt: row.secret_created_at,
    previousSecretSealed: row.previous_secret_sealed,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    failingSince: row.failing_since,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
