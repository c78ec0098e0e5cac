import {
  ListWebhookDeliveriesQuery,
  NoQuery,
  Page,
  RecoverWebhookBody,
  RecoverWebhookResult,
  WebhookDelivery,
  WebhookDeliveryEnvelope,
  WebhookDeliveryParams,
  WebhookEndpointParams,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import {
  getWebhookDelivery,
  listWebhookDeliveries,
  recoverWebhookDeliveries,
  redeliverWebhook,
  sendTestWebhook,
} from '../../domain/webhooks/manage-webhook-deliveries.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['webhooks'];
const config = { scope: 'webhooks:manage' as const };
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: false }));

export function webhookDeliveryRoutes(app: App, { cursors }: RouteDeps): void {
  app.post('/v1/webhooks/endpoints/:endpointId/test', {
    config,
    schema: {
      tags,
      summary: 'Send a webhook.test event to this endpoint only',
      params: WebhookEndpointParams,
      body: EmptyBody,
      response: { 202: WebhookDeliveryEnvelope, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(202).send({
        delivery: await sendTestWebhook(request.deps, tenantOf(request), request.params.endpointId),
      }),
  });

  app.get('/v1/webhooks/endpoints/:endpointId/deliveries', {
    config,
    schema: {
      tags,
      summary: 'Delivery log, newest first, with every attempt',
      params: WebhookEndpointParams,
      querystring: ListWebhookDeliveriesQuery,
      response: { 200: Page(WebhookDelivery), ...problemResponses },
    },
    handler: async (request) => {
      const { status, limit = 20, cursor } = request.query;
      const { endpointId } = request.params;
      const scope = cursorScope(tenantOf(request), 'webhook-deliveries', { endpointId, status });
      const page = await listWebhookDeliveries(
        request.deps,
        tenantOf(request),
        endpointId,
        { status },
        { limit, afterId: readAfterId(cursors, scope, cursor) },
      );
      return pageOf(cursors, scope, page, (d) => d.id);
    },
  });

  app.post('/v1/webhooks/endpoints/:endpointId/recover', {
    config,
    schema: {
      tags,
      summary: 'Re-queue every failed delivery created since a time',
      params: WebhookEndpointParams,
      body: RecoverWebhookBody,
      response: { 202: RecoverWebhookResult, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply
        .code(202)
        .send(
          await recoverWebhookDeliveries(
            request.deps,
            tenantOf(request),
            request.params.endpointId,
            Date.parse(request.body.since),
          ),
        ),
  });

  app.get('/v1/webhooks/deliveries/:deliveryId', {
    config,
    schema: {
      tags,
      summary: 'One delivery (the X-PRESENCE-Delivery-Id) with its attempts',
      params: WebhookDeliveryParams,
      querystring: NoQuery,
      response: { 200: WebhookDeliveryEnvelope, ...problemResponses },
    },
    handler: async (request) => ({
      delivery: await getWebhookDelivery(request.deps, tenantOf(request), request.params.deliveryId),
    }),
  });

  app.post('/v1/webhooks/deliveries/:deliveryId/redeliver', {
    config,
    schema: {
      tags,
      summary: 'Send a delivery again now (same delivery id, fresh retry schedule)',
      params: WebhookDeliveryParams,
      body: EmptyBody,
      response: { 202: WebhookDeliveryEnvelope, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(202).send({
        delivery: await redeliverWebhook(request.deps, tenantOf(request), request.params.deliveryId),
      }),
  });
}
