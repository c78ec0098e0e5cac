import {
  CreateWebhookEndpointBody,
  ListWebhookEndpointsQuery,
  NoQuery,
  Page,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
  WebhookEndpoint,
  WebhookEndpointParams,
  WebhookEndpointWithSecret,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../../domain/webhooks/manage-webhook-endpoints.js';
import { cursorScope } from '../cursor.js';
import { tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';
import { webhookDeliveryRoutes } from './webhooks-deliveries.js';

const tags = ['webhooks'];
const config = { scope: 'webhooks:manage' as const };
const EndpointEnvelope = Type.Object({ endpoint: WebhookEndpoint });

export function webhookRoutes(app: App, routeDeps: RouteDeps): void {
  const { cursors } = routeDeps;
  app.post('/v1/webhooks/endpoints', {
    config: { ...config, idempotent: true },
    schema: {
      tags,
      summary: 'Register an endpoint; the signing secret is shown once',
      body: CreateWebhookEndpointBody,
      response: { 201: WebhookEndpointWithSecret, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply.code(201).send(await createWebhookEndpoint(request.deps, tenantOf(request), request.body)),
  });

  app.get('/v1/webhooks/endpoints', {
    config,
    schema: {
      tags,
      summary: 'List endpoints (never their secrets)',
      querystring: ListWebhookEndpointsQuery,
      response: { 200: Page(WebhookEndpoint), ...problemResponses },
    },
    handler: async (request) => {
      const scope = cursorScope(tenantOf(request), 'webhook-endpoints', {});
      const page = await listWebhookEndpoints(request.deps, tenantOf(request), {
        limit: request.query.limit ?? 50,
        afterId: readAfterId(cursors, scope, request.query.cursor),
      });
      return pageOf(cursors, scope, page, (e) => e.id);
    },
  });

  app.get('/v1/webhooks/endpoints/:endpointId', {
    config,
    schema: {
      tags,
      summary: 'One endpoint, with its state (enabled, disabled reason, failing since)',
      params: WebhookEndpointParams,
      querystring: NoQuery,
      response: { 200: EndpointEnvelope, ...problemResponses },
    },
    handler: async (request) => ({
      endpoint: await getWebhookEndpoint(request.deps, tenantOf(request), request.params.endpointId),
    }),
  });

  app.patch('/v1/webhooks/endpoints/:endpointId', {
    config,
    schema: {
      tags,
      summary: 'Change url, events, description or enabled (only the fields given)',
      params: WebhookEndpointParams,
      body: UpdateWebhookEndpointBody,
      response: { 200: EndpointEnvelope, ...problemResponses },
    },
    handler: async (request) => ({
      endpoint: await updateWebhookEndpoint(
        request.deps,
        tenantOf(request),
        request.params.endpointId,
        request.body,
      ),
    }),
  });

  app.delete('/v1/webhooks/endpoints/:endpointId', {
    config,
    schema: {
      tags,
      summary: 'Delete an endpoint and its delivery log',
      params: WebhookEndpointParams,
      response: { 204: Type.Null(), ...problemResponses },
    },
    handler: async (request, reply) => {
      await deleteWebhookEndpoint(request.deps, tenantOf(request), request.params.endpointId);
      return reply.code(204).send(null);
    },
  });

  app.post('/v1/webhooks/endpoints/:endpointId/rotate-secret', {
    config: { ...config, idempotent: true },
    schema: {
      tags,
      summary: 'New signing secret (shown once); the old one also signs during the overlap',
      params: WebhookEndpointParams,
      body: Type.Optional(RotateWebhookSecretBody),
      response: { 200: WebhookEndpointWithSecret, ...problemResponses },
    },
    handler: async (request) =>
      rotateWebhookSecret(
        request.deps,
        tenantOf(request),
        request.params.endpointId,
        request.body?.overlapSeconds ?? 86400,
      ),
  });

  webhookDeliveryRoutes(app, routeDeps);
}
