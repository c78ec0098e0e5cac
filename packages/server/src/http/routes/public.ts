import { ServiceKeySet } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import type { App } from '../types.js';
import { sendProblem } from '../plugins/problem.js';
import { publishedLogKeys } from '../../domain/receipt-log/log-signer.js';
import { problemResponses } from './errors.js';
import type { RouteDeps } from './route-deps.js';

/** Seconds a load balancer or client should wait before asking an unready instance again. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

export function publicRoutes(app: App, { isDraining }: RouteDeps): void {
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
      if (isDraining()) {
        reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        return sendProblem(reply, request, 'service_unavailable', 'this instance is shutting down');
      }
      try {
        await request.deps.store.ping();
        return { status: 'ready' as const, database: request.deps.store.dialect };
      } catch {
        // Not logged: a load balancer polls this every few seconds; the outage is logged by the jobs.
        reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
        return sendProblem(reply, request, 'service_unavailable', 'the database does not answer');
      }
    },
  });

  app.get('/.well-known/presence/keys.json', {
    schema: {
      tags: ['receipts'],
      summary:
        'The service Ed25519 public keys that sign receipts and export packs (old ones included) and receipt-log checkpoints (use: "log")',
      response: { 200: ServiceKeySet, ...problemResponses },
    },
    handler: async (request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return {
        keys: [...request.deps.signer.publishedKeys(), ...(await publishedLogKeys(request.deps))],
      };
    },
  });
}
