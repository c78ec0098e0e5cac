import type { Kysely } from 'kysely';
import type { WebhookRepos } from '../../domain/webhooks/ports.js';
import type { Database } from '../schema.js';
import { createWebhookBacklogRepo } from './webhook-backlog.js';
import { createWebhookDeliveryRepo } from './webhook-deliveries.js';
import { createWebhookEndpointRepo } from './webhook-endpoints.js';
import { createWebhookFanOutRepo } from './webhook-fan-out.js';

export function createWebhookRepos(db: Kysely<Database>): WebhookRepos {
  return {
    endpoints: createWebhookEndpointRepo(db),
    deliveries: createWebhookDeliveryRepo(db),
    fanOut: createWebhookFanOutRepo(db),
    backlog: createWebhookBacklogRepo(db),
  };
}
