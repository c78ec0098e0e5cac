/**
 * A small load balancer for multi-instance tests: an HTTP proxy that polls each backend's
 * /readyz and routes round-robin only to the ready ones (as nginx with active health checks, or a
 * Kubernetes Service, would). No retries: a request it forwards fails if the backend fails it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReadyBalancer {
  url: string;
  add(backendUrl: string): void;
  remove(backendUrl: string): void;
  close(): Promise<void>;
}

export async function startReadyBalancer(pollMs = 100): Promise<ReadyBalancer> {
  const backends = new Map<string, boolean>();
  let next = 0;
  const poll = setInterval(() => {
    for (const url of backends.keys()) {
      fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) }).then(
        (r) => backends.has(url) && backends.set(url, r.status === 200),
        () => backends.has(url) && backends.set(url, false),
      );
    }
  }, pollMs);
  const server: Server = createServer((req, res) => {
    const ready = [...backends].filter(([, ok]) => ok).map(([url]) => url);
    const target = ready[next++ % Math.max(1, ready.length)];
    if (target === undefined) {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('no ready backend');
      return;
    }
    const upstream = request(
      `${target}${req.url ?? '/'}`,
      { method: req.method, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('backend failed');
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    add: (url) => backends.set(url, false),
    remove: (url) => backends.delete(url),
    async close() {
      clearInterval(poll);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
