import type {
  CreateWebhookEndpointBody,
  UpdateWebhookEndpointBody,
  WebhookEndpoint,
} from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { newId } from '../ids.js';
import type { PageRequest, StoreTx } from '../ports.js';
import { checkWebhookUrl } from './check-webhook-url.js';
import type { EndpointChange, WebhookEndpointRecord } from './ports.js';
import { toWebhookEndpoint } from './to-webhook-dto.js';
import { newWebhookSecret, sealWebhookSecret } from './webhook-secret.js';

type EndpointDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'secrets' | 'webhooks'>;

export async function createWebhookEndpoint(
  deps: EndpointDeps,
  tenantId: string,
  input: CreateWebhookEndpointBody,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const url = await checkWebhookUrl(deps, input.url);
  const now = deps.clock.now();
  const id = newId(deps, 'whe');
  const secret = newWebhookSecret(deps);
  const record: WebhookEndpointRecord = {
    id,
    tenantId,
    url,
    description: input.description ?? null,
    events: input.events,
    enabled: true,
    disabledReason: null,
    disabledAt: null,
    secretSealed: sealWebhookSecret(deps, id, secret),
    secretCreatedAt: now,
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  // In a transaction so an Idempotency-Key commits with it (http/plugins/idempotency.ts).
  await deps.store.transaction((tx) => tx.webhooks.endpoints.insert(record));
  return { endpoint: toWebhookEndpoint(record), secret };
}

export async function listWebhookEndpoints(deps: Pick<Deps, 'store'>, tenantId: string, page: PageRequest) {
  const rows = await deps.store.webhooks.endpoints.list(tenantId, {
    limit: page.limit + 1,
    afterId: page.afterId,
  });
  return { items: rows.slice(0, page.limit).map(toWebhookEndpoint), hasMore: rows.length > page.limit };
}

export async function getWebhookEndpoint(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await deps.store.webhooks.endpoints.get(tenantId, id);
  if (!endpoint) throw notFound('the webhook endpoint');
  return toWebhookEndpoint(endpoint);
}

/**
 * Changes url, events, description or enabled. Disabling fails the endpoint's pending deliveries
 * (recover them after re-enabling); enabling clears the disabled reason and the failure streak.
 */
export async function updateWebhookEndpoint(
  deps: EndpointDeps,
  tenantId: string,
  id: string,
  input: UpdateWebhookEndpointBody,
): Promise<WebhookEndpoint> {
  const url = input.url === undefined ? undefined : await checkWebhookUrl(deps, input.url);
  return deps.store.transaction(async (tx) => {
    const endpoint = await tx.webhooks.endpoints.get(tenantId, id);
    if (!endpoint) throw notFound('the webhook endpoint');
    const now = deps.clock.now();
    const change: EndpointChange = { updatedAt: now };
    if (url !== undefined) change.url = url;
    if (input.events !== undefined) change.events = input.events;
    if (input.description !== undefined) change.description = input.description;
    if (input.enabled === true && !endpoint.enabled) {
      Object.assign(change, { enabled: true, disabledReason: null, disabledAt: null, failingSince: null });
    }
    const updated = await tx.webhooks.endpoints.update(tenantId, id, change);
    if (!updated) throw notFound('the webhook endpoint');
    if (input.enabled === false && endpoint.enabled) {
      return toWebhookEndpoint(await disableWebhookEndpoint(tx, updated, 'disabled through the API', now));
    }
    return toWebhookEndpoint(updated);
  });
}

/** Disables an endpoint and fails its pending deliveries, which `recover` can re-queue later. */
export async function disableWebhookEndpoint(
  tx: StoreTx,
  endpoint: WebhookEndpointRecord,
  reason: string,
  now: number,
): Promise<WebhookEndpointRecord> {
  const updated = await tx.webhooks.endpoints.update(endpoint.tenantId, endpoint.id, {
    enabled: false,
    disabledReason: reason,
    disabledAt: now,
    updatedAt: now,
  });
  await tx.webhooks.deliveries.failPending(endpoint.id, `endpoint disabled: ${reason}`, now);
  return updated ?? endpoint;
}

/** Removes the endpoint with its delivery log; webhooks.delivered usage already counted stays. */
export async function deleteWebhookEndpoint(deps: Pick<Deps, 'store'>, tenantId: string, id: string) {
  if (!(await deps.store.webhooks.endpoints.delete(tenantId, id))) throw notFound('the webhook endpoint');
}

/**
 * A new secret signs from now on; the old one keeps signing beside it for `overlapSeconds`, so
 * receivers can switch without rejecting anything. A rotation during an overlap drops the oldest.
 */
export async function rotateWebhookSecret(
  deps: EndpointDeps,
  tenantId: string,
  id: string,
  overlapSeconds: number,
): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
  const secret = newWebhookSecret(deps);
  return deps.store.transaction(async (tx) => {
    const endpoint = await tx.webhooks.endpoints.get(tenantId, id);
    if (!endpoint) throw notFound('the webhook endpoint');
    const now = deps.clock.now();
    const updated = await tx.webhooks.endpoints.update(
      tenantId,
      id,
      {
        secretSealed: sealWebhookSecret(deps, id, secret),
        secretCreatedAt: now,
        previousSecretSealed: overlapSeconds > 0 ? endpoint.secretSealed : null,
        previousSecretExpiresAt: overlapSeconds > 0 ? now + overlapSeconds * 1000 : null,
        updatedAt: now,
      },
      endpoint.secretSealed,
    );
    if (!updated) {
      // A concurrent rotation replaced the secret read above: this secret would never be used.
      if (!(await tx.webhooks.endpoints.get(tenantId, id))) throw notFound('the webhook endpoint');
      throw new DomainError(
        'conflict',
        'the webhook secret was rotated by another request at the same time; use the secret it returned',
      );
    }
    return { endpoint: toWebhookEndpoint(updated), secret };
  });
}
