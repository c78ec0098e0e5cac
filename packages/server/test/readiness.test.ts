/**
 * Readiness on both dialects: /readyz is 200 while the database answers; once shutdown begins it
 * is a 503 service_unavailable problem with Retry-After, while API requests are still served (a
 * balancer stops routing here first, requests already on their way finish).
 */
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { startTestService, useTestService } from './support/test-service.js';

describeEachDialect('readiness', (dialect) => {
  const s = useTestService(dialect);

  it('turns 503 with Retry-After when draining, and the API keeps answering', async () => {
    const ready = await s.request('GET', '/readyz', undefined, '');
    expect(ready).toMatchObject({ status: 200, json: { status: 'ready', database: dialect } });
    s.composed.startDraining();
    const draining = await s.request('GET', '/readyz', undefined, '');
    expect(draining.status).toBe(503);
    expect(draining.json).toMatchObject({
      code: 'service_unavailable',
      detail: 'this instance is shutting down',
    });
    expect(Number(draining.headers['retry-after'])).toBeGreaterThan(0);
    expect((await s.request('GET', '/v1/webhooks/endpoints')).status).toBe(200);
  });

  it('is 503 with Retry-After, not 500, when the database is gone from under it', async () => {
    const other = await startTestService(dialect);
    await other.testStore.cleanup(); // closes the store and drops its schema or file
    const res = await other.request('GET', '/readyz', undefined, '');
    expect(res.status).toBe(503);
    expect(res.json.code).toBe('service_unavailable');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    await other.composed.app.close();
  });
});
