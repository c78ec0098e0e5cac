// Small helpers of bench/approvals/run.mjs.
/* global setTimeout */
import { createServer } from 'node:net';

/** The p-quantile (0..1) of `xs`. */
export const q = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

export const ms = (x) => `${x.toFixed(2)} ms`;

export function sleep(n) {
  return new Promise((ok) => setTimeout(ok, n));
}

export function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}
