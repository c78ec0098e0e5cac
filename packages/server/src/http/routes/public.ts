import { ServiceKeySet } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import type { App } from '../types.js';
import { sendProblem } from '../plugins/problem.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

export function publicRoutes(app: App, { deps }: RouteDeps): void {
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      summary: 'Liveness',
      response: { 200: Type.Object({ status: Type.Literal('ok') }), ...problemResponses },
    },
    handler: async () => ({ status: 'ok' as const }),
  });

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'Readiness: the database answers',
      response: {
        200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
        ...problemResponses,
      },
    },
    handler: async (request, reply) => {
      try {
        await deps.store.ping();
        return { status: 'ready' as const, database: deps.store.dialect };
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        return sendProblem(reply, request, 'service_unavailable', 'the database does not answer');
      }
    },
  });

  app.get('/.well-known/presence/keys.json', {
    schema: {
      tags: ['receipts'],
      summary: 'The service Ed25519 public keys that sign receipts and export packs, old ones included',
      response: { 200: ServiceKeySet, ...problemResponses },
    },
    handler: async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return { keys: deps.signer.publishedKeys() };
    },
  });
}
