import type { App } from '../types.js';

/**
 * One log line per request, when it is answered (Fastify's own pair of "incoming request" and
 * "request completed" lines is turned off in app.ts): method, redacted URL, status, time and the
 * request id. A failure's own line (with its error) is logged where it is handled.
 */
export function registerRequestLog(app: App): void {
  app.addHook('onResponse', async (request, reply) => {
    const status = reply.statusCode;
    request.log.info(
      { req: request, res: { statusCode: status }, responseTime: Math.round(reply.elapsedTime * 10) / 10 },
      `${request.method} ${request.routeOptions.url ?? 'unrouted'} ${status}`,
    );
  });
}
