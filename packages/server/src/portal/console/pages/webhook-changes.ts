import { WEBHOOK_EVENT_TYPES, WebhookUrl, type WebhookEventType } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { notFound } from '../../../domain/errors.js';
import { checkWebhookUrl } from '../../../domain/webhooks/check-webhook-url.js';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { ConsoleContext } from '../console-context.js';
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

const Seconds = (max: number) => Type.Integer({ minimum: 0, maximum: max });

async function checkEndpoint(ctx: ConsoleContext, tenantId: string, target: string) {
  await getWebhookEndpoint(ctx.deps, tenantId, target);
}

/** Where an endpoint sends what: its before (and, for an edit, its after). */
async function endpointState(ctx: ConsoleContext, tenantId: string, target: string) {
  const e = await getWebhookEndpoint(ctx.deps, tenantId, target);
  return { url: e.url, events: e.events, description: e.description };
}

/**
 * An endpoint receives the tenant's events (subjects, receipts, changes): adding one, or pointing
 * one at another URL or more events, is a way to read them out, so it passes the passkey gate like
 * deleting one or rotating its secret.
 */
export const WEBHOOK_CHANGES: Record<string, DangerousChange> = {
  'webhook.create': {
    permission: 'webhooks',
    params: EndpointParams,
    returnsSecret: true,
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
  'webhook.update': {
    permission: 'webhooks',
    params: EndpointParams,
    check: async (ctx, tenantId, target, params: EndpointInput) => {
      await checkEndpoint(ctx, tenantId, target);
      await checkWebhookUrl(ctx.deps, params.url);
    },
    describe: async (ctx, tenantId, target, params: EndpointInput) => ({
      before: await endpointState(ctx, tenantId, target),
      after: { url: params.url, events: params.events, description: params.description || null },
    }),
    execute: async (ctx, tenantId, target, params: EndpointInput) => {
      const endpoint = await updateWebhookEndpoint(ctx.deps, tenantId, target, {
        url: params.url,
        events: params.events,
        description: params.description || null,
      });
      return {
        message: `The endpoint now sends ${endpoint.events.join(', ')} to ${endpoint.url}.`,
        redirect: `/console/webhooks/${endpoint.id}`,
      };
    },
  },
  'webhook.delete': {
    permission: 'webhooks',
    params: Type.Object({}, { additionalProperties: false }),
    check: checkEndpoint,
    describe: async (ctx, tenantId, target) => ({
      before: await endpointState(ctx, tenantId, target),
      after: null,
    }),
    execute: async (ctx, tenantId, target) => {
      await deleteWebhookEndpoint(ctx.deps, tenantId, target);
      return { message: 'The webhook endpoint was deleted.', redirect: '/console/webhooks' };
    },
  },
  'webhook.rotate-secret': {
    permission: 'webhooks',
    params: Type.Object({ overlapSeconds: Seconds(7 * 86400) }, { additionalProperties: false }),
    returnsSecret: true,
    check: checkEndpoint,
    describe: async (ctx, tenantId, target, params: { overlapSeconds: number }) => {
      const endpoint = await getWebhookEndpoint(ctx.deps, tenantId, target);
      const secret = `the current secret (made ${endpoint.secretCreatedAt})`;
      return {
        before: { url: endpoint.url, secret },
        after: { url: endpoint.url, secret: 'a new secret', oldSecretWorksForSeconds: params.overlapSeconds },
      };
    },
    execute: async (ctx, tenantId, target, params: { overlapSeconds: number }) => {
      const rotated = await rotateWebhookSecret(ctx.deps, tenantId, target, params.overlapSeconds);
      return {
        message: 'The signing secret was rotated. Copy the new secret now: it is shown only once.',
        secret: rotated.secret,
      };
    },
  },
};
