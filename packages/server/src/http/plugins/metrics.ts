/**
 * Request metrics for every route, and `GET /metrics` on the public port when a token is
 * configured (PRESENCE_METRICS_TOKEN, sent as `Authorization: Bearer <token>`). Without a token
 * the route does not exist here; PRESENCE_METRICS_LISTEN serves the same text on its own listener.
 */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { Metrics } from '../../observability/create-metrics.js';
import type { App } from '../types.js';
import { sendProblem } from './problem.js';

export function registerRequestMetrics(app: App, metrics: Metrics): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.httpRequestDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
  });
}

export function registerMetricsRoute(app: App, metrics: Metrics, token: string | undefined): void {
  if (token === undefined) return;
  const expected = digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const presented = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (presented === undefined || !timingSafeEqual(digest(presented), expected)) {
      reply.header('www-authenticate', 'Bearer realm="presence-metrics"');
      return sendProblem(
        reply,
        request,
        'unauthorized',
        'send Authorization: Bearer <PRESENCE_METRICS_TOKEN>',
      );
    }
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}

/** Equal-length digests, so the comparison's time says nothing about the token. */
function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
