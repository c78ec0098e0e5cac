import { describe, expect, it } from 'vitest';
import type { Deps } from '../domain/deps.js';
import { createMetrics } from '../observability/create-metrics.js';
import { buildApp, type HttpOptions } from './app.js';
import type { RouteDeps } from './routes/route-deps.js';

const CONSOLE = {
  origin: 'http://localhost:8080',
  inviteTtlMs: 1000,
  sessionIdleMs: 1000,
  sessionAbsoluteMs: 1000,
};

type Plugin = NonNullable<HttpOptions['plugins']>[number];

/** The app over `marker` (a stand-in for the domain's deps) with one extra route plugin. */
function appWith(marker: Deps, plugin: Plugin) {
  return buildApp(marker, {
    logger: false,
    bodyLimitBytes: 1024,
    trustProxy: false,
    rateLimits: {},
    metrics: createMetrics(),
    cursorKey: Buffer.alloc(32),
    console: CONSOLE,
    plugins: [plugin],
  });
}

/**
 * Routes reach the domain one way only: `request.deps`. On an idempotent route that is the
 * request-scoped set whose store commits the Idempotency-Key together with the change; anything a
 * route file could capture at registration would bypass it. So registration hands out no deps.
 */
describe('route registration', () => {
  it('hands route files and plugins no domain dependencies to capture', async () => {
    const marker = { store: {}, clock: { now: () => 0 } } as unknown as Deps;
    let seen: RouteDeps | undefined;
    const app = await appWith(marker, async (_app, routeDeps) => {
      seen = routeDeps;
    });
    await app.ready();
    expect(seen).toBeDefined();
    expect(Object.keys(seen!).sort()).toEqual([
      'console',
      'cursors',
      'isDraining',
      'links',
      'metrics',
      'rateLimits',
    ]);
    for (const value of Object.values(seen!)) {
      expect(value).not.toBe(marker);
      expect(value).not.toBe(marker.store);
    }
    await app.close();
  });

  it('gives each request the dependencies through request.deps', async () => {
    const marker = { store: {}, clock: { now: () => 0 } } as unknown as Deps;
    let fromRequest: Deps | undefined;
    const app = await appWith(marker, async (api) => {
      api.get('/probe', { schema: { hide: true } }, async (request) => {
        fromRequest = request.deps;
        return {};
      });
    });
    expect((await app.inject({ method: 'GET', url: '/probe' })).statusCode).toBe(200);
    expect(fromRequest).toBe(marker);
    await app.close();
  });
});
