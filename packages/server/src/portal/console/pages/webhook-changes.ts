import { WEBHOOK_EVENT_TYPES, WebhookUrl, type WebhookEventType } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../domain/errors.js';
import { checkWebhookUrl } from '../../../domain/webhooks/check-webhook-url.js';
import { createWebhookEndpoint } from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { DangerousChange } from './dangerous-changes.js';

/** The target of an endpoint that does not exist yet. */
export const NEW_ENDPOINT_TARGET = 'new';

export const EndpointParams = Type.Object(
  {
    url: WebhookUrl,
    description: Type.Optional(Type.String({ maxLength: 200 })),
    events: Type.Array(Type.Union(WEBHOOK_EVENT_TYPES.map((t) => Type.Literal(t))), {
      minItems: 1,
      uniqueItems: true,
    }),
  },
  { additionalProperties: false },
);

interface EndpointInput {
  url: string;
  description?: string;
  events: WebhookEventType[];
}

/**
 * A new endpoint receives the tenant's events (subjects, receipts, changes): adding one is a way to
 * read them out, so it passes the passkey gate like deleting one or rotating its secret.
 */
export const WEBHOOK_CHANGES: Record<string, DangerousChange> = {
  'webhook.create': {
    permission: 'webhooks',
    params: EndpointParams,
    check: async (ctx, _tenantId, target, params: EndpointInput) => {
      if (target !== NEW_ENDPOINT_TARGET) throw notFound('the endpoint to create');
      await checkWebhookUrl(ctx.deps, params.url);
    },
    describe: async (_ctx, _tenantId, _target, params: EndpointInput) => ({
      before: null,
      after: {
        url: params.url,
        events: params.events,
        description: params.description ?? null,
        secret: 'a new signing secret',
      },
    }),
    execute: async (ctx, tenantId, _target, params: EndpointInput) => {
      const { endpoint, secret } = await createWebhookEndpoint(ctx.deps, tenantId, {
        url: params.url,
        events: params.events,
        ...(params.description ? { description: params.description } : {}),
      });
      return {
        message: `The endpoint ${endpoint.url} was added. Copy its signing secret now: it is shown only once.`,
        secret,
        link: { href: `/console/webhooks/${endpoint.id}`, text: `Open the endpoint ${endpoint.url}` },
      };
    },
  },
};
