import type { App } from '../types.js';
import { sendProblem } from './problem.js';

/**
 * A per-API-key fixed one-minute window, in process memory. It protects one instance from a
 * runaway client; it is not a global quota (that is metering's job).
 */
export function registerRateLimit(app: App, perMinute: number, now: () => number): void {
  if (perMinute <= 0) return;
  const windows = new Map<string, { start: number; count: number }>();
  app.addHook('preHandler', async (request, reply) => {
    const key = request.auth?.keyId;
    if (key === undefined) return;
    const t = now();
    let w = windows.get(key);
    if (!w || t - w.start >= 60_000) {
      if (windows.size > 100_000) windows.clear();
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    w.count++;
    if (w.count > perMinute) {
      reply.header('retry-after', String(Math.ceil((w.start + 60_000 - t) / 1000)));
      return sendProblem(
        reply,
        request,
        'rate_limited',
        `more than ${perMinute} requests in one minute for this API key`,
      );
    }
  });
}
