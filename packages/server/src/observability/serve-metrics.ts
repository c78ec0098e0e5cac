import { createServer, type Server } from 'node:http';
import type { Metrics } from './create-metrics.js';

/**
 * PRESENCE_METRICS_LISTEN: Prometheus text on a listener of its own (bind it to an internal
 * interface), without a token; GET /metrics only. Resolves once listening.
 */
export async function serveMetrics(
  listen: { host: string; port: number },
  metrics: Metrics,
): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  return server;
}
