/**
 * Request limits in one process (no Redis): per API key, per tenant, and per client address
 * for requests failing authentication (401) or authorization (403), with RateLimit-* headers,
 * Retry-After and a `rate_limited` problem. A REDIS_URL that cannot be reached still limits
 * (per process) and never fails a request. Both dialects.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { freePort } from './support/server-process.js';
import { startTestService, type TestService } from './support/test-service.js';

const pg = await pgAvailable();
const LIST = '/v1/presence/receipts?limit=1';

function expectRefused(res: { status: number; json: any; headers: Record<string, unknown> }, limit: number) {
  expect(res.status).toBe(429);
  expect(res.headers['content-type']).toContain('application/problem+json');
  expect(res.json.code).toBe('rate_limited');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-policy']).toBe(`${limit};w=60`);
}

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pg)(`rate limits on ${dialect}`, () => {
    const services: TestService[] = [];
    const start = async (env: Record<string, string>) => {
      const s = await startTestService(dialect, { env });
      services.push(s);
      return s;
    };
    afterAll(async () => {
      for (const s of services) await s.composed.close().catch(() => undefined);
      for (const s of services) await s.testStore.cleanup().catch(() => undefined);
    });

    it('limits each API key, with RateLimit-* headers on every answer', async () => {
      const s = await start({ PRESENCE_RATE_LIMIT_PER_MINUTE: '3' });
      for (const remaining of ['2', '1', '0']) {
        const ok = await s.request('GET', LIST);
        expect(ok.status).toBe(200);
        expect(ok.headers['ratelimit-limit']).toBe('3');
        expect(ok.headers['ratelimit-remaining']).toBe(remaining);
        expect(Number(ok.headers['ratelimit-reset'])).toBeGreaterThan(0);
      }
      const refused = await s.request('GET', LIST);
      expectRefused(refused, 3);
      expect(refused.json.detail).toContain('API key');
      // Another key of the same tenant has its own window.
      const other = await s.keyWith(['receipts:read']);
      expect((await s.request('GET', LIST, undefined, other)).status).toBe(200);
    });

    it('limits a tenant across all its keys', async () => {
      const s = await start({
        PRESENCE_RATE_LIMIT_PER_MINUTE: '100',
        PRESENCE_RATE_LIMIT_TENANT_PER_MINUTE: '4',
      });
      const second = await s.keyWith(['receipts:read']);
      expect((await s.request('GET', LIST)).status).toBe(200);
      expect((await s.request('GET', LIST)).status).toBe(200);
      expect((await s.request('GET', LIST, undefined, second)).status).toBe(200);
      const last = await s.request('GET', LIST, undefined, second);
      expect(last.status).toBe(200);
      expect(last.headers['ratelimit-remaining']).toBe('0');
      const refused = await s.request('GET', LIST, undefined, second);
      expectRefused(refused, 4);
      expect(refused.json.detail).toContain('tenant');
      const otherTenant = await s.newTenant();
      expect((await s.request('GET', LIST, undefined, otherTenant.apiKey)).status).toBe(200);
    });

    it('limits an address whose requests fail authentication or authorization, before any key lookup', async () => {
      const s = await start({ PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '3' });
      const noScope = await s.keyWith(['challenges:read']);
      expect((await s.request('GET', LIST, undefined, 'prs_random_guess_1')).status).toBe(401);
      expect((await s.request('GET', LIST, undefined, '')).status).toBe(401);
      expect((await s.request('GET', LIST, undefined, noScope)).status).toBe(403);
      const sprayed = await s.request('GET', LIST, undefined, 'prs_random_guess_2');
      expectRefused(sprayed, 3);
      expect(sprayed.json.detail).toContain('address');
      // Blocked for the rest of the window, whatever the key.
      expectRefused(await s.request('GET', LIST), 3);
      // Public reads without credentials are not behind it; any request sending credentials is.
      expect((await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).status).toBe(200);
      expectRefused(await s.request('GET', '/.well-known/presence/keys.json', undefined, 'prs_guess'), 3);
      const metrics = await s.composed.metrics.registry.getSingleMetricAsString(
        'presence_rate_limited_total',
      );
      expect(metrics).toContain('presence_rate_limited_total{limit="address"} 3');
    });

    it('still limits, per process, and never fails a request when Redis cannot be reached', async () => {
      const closed = await freePort();
      const s = await start({
        REDIS_URL: `redis://127.0.0.1:${closed}`,
        PRESENCE_RATE_LIMIT_PER_MINUTE: '3',
      });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await s.request('GET', LIST)).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const registry = s.composed.metrics.registry;
      expect(await registry.getSingleMetricAsString('presence_rate_limit_store_degraded')).toMatch(/ 1$/m);
    });
  });
}
