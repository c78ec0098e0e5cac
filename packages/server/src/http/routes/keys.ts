import {
  NoQuery,
  ApiKey,
  CreateKeyBody,
  KeyCreated,
  KeyRotated,
  KeyParams,
  ListKeysQuery,
  Page,
  RotateKeyBody,
} from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { createApiKey } from '../../domain/api-keys/create-api-key.js';
import { getApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../../domain/api-keys/manage-api-keys.js';
import { cursorScope } from '../cursor.js';
import { scopesOf, tenantOf, type App } from '../types.js';
import { problemResponses } from './errors.js';
import { pageOf, readAfterId } from './paging.js';
import type { RouteDeps } from './route-deps.js';

const tags = ['api keys'];
const config = { scope: 'keys:manage' as const };
const idempotentConfig = { ...config, idempotent: true };

export function keyRoutes(app: App, { cursors }: RouteDeps): void {
  app.post('/v1/keys', {
    config: idempotentConfig,
    schema: {
      tags,
      summary: 'Create an API key (the secret is shown once)',
      body: CreateKeyBody,
      response: { 201: KeyCreated, ...problemResponses },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(await createApiKey(request.deps, tenantOf(request), request.body, scopesOf(request))),
  });

  app.get('/v1/keys', {
    config,
    schema: {
      tags,
      summary: 'List API keys (never their secrets)',
      querystring: ListKeysQuery,
      response: { 200: Page(ApiKey), ...problemResponses },
    },
    handler: async (request) => {
      const scope = cursorScope(tenantOf(request), 'keys', {});
      const page = await listApiKeys(request.deps, tenantOf(request), {
        limit: request.query.limit ?? 50,
        afterId: readAfterId(cursors, scope, request.query.cursor),
      });
      return pageOf(cursors, scope, page, (k) => k.keyId);
    },
  });

  app.get('/v1/keys/:keyId', {
    config,
    schema: {
      tags,
      summary: 'One API key',
      params: KeyParams,
      querystring: NoQuery,
      response: { 200: ApiKey, ...problemResponses },
    },
    handler: async (request) => getApiKey(request.deps, tenantOf(request), request.params.keyId),
  });

  app.post('/v1/keys/:keyId/rotate', {
    config: idempotentConfig,
    schema: {
      tags,
      summary: 'Issue a replacement key; the old one keeps working for the grace period',
      params: KeyParams,
      body: Type.Optional(RotateKeyBody),
      response: {
        201: KeyRotated,
        ...problemResponses,
      },
    },
    handler: async (request, reply) =>
      reply
        .code(201)
        .send(
          await rotateApiKey(
            request.deps,
            tenantOf(request),
            request.params.keyId,
            request.body?.gracePeriodSeconds ?? 86400,
            scopesOf(request),
          ),
        ),
  });

  app.delete('/v1/keys/:keyId', {
    config,
    schema: {
      tags,
      summary: 'Revoke an API key now',
      params: KeyParams,
      response: { 200: ApiKey, ...problemResponses },
    },
    handler: async (request) =>
      revokeApiKey(request.deps, tenantOf(request), request.params.keyId, scopesOf(request)),
  });
}
