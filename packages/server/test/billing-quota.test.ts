import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { quotaPlan, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const START = Date.UTC(2031, 4, 30, 12, 0, 0); // 30 May 2031, two days before the period ends
const actionHashHex = computeActionHash({ type: 'payout', amount: '1.00' });

describeEachDialect('challenge quota', (dialect) => {
  const s = useBillingService(dialect, { start: START, pgPoolSize: 12 });

  const create = (apiKey: string, subject?: string) =>
    s.request('POST', '/v1/presence/challenge', { actionHashHex, ...(subject ? { subject } : {}) }, apiKey);

  async function thresholdEvents(tenantId: string) {
    const rows = await s.testStore.rows('outbox_events');
    return rows
      .filter((r) => r.tenant_id === tenantId && r.type === 'usage.quota_threshold')
      .map((r) => JSON.parse(r.payload))
      .sort((a, b) => a.period.localeCompare(b.period) || a.thresholdPercent - b.thresholdPercent);
  }

  it('refuses the challenge past the quota with 429 quota_exceeded, Retry-After and the reset time', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(5));
    const authenticator = await s.enroll(apiKey, 'user-1');
    const issued = [];
    for (let i = 0; i < 5; i++) issued.push((await create(apiKey, 'user-1')).json);
    expect(issued.every((c) => typeof c.challengeId === 'string')).toBe(true);
    const refused = await create(apiKey, 'user-1');
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json).toMatchObject({ code: 'quota_exceeded', status: 429 });
    expect(refused.json.detail).toContain('resets at 2031-06-01T00:00:00.000Z');
    expect(refused.headers['retry-after']).toBe(String(36 * 3600));
    // The user already acted: verifying an issued challenge is never blocked.
    const assertion = authenticator.assert({ challenge: issued[4].publicKey.challenge });
    const verified = await s.request(
      'POST',
      '/v1/presence/verify',
      { challengeId: issued[4].challengeId, assertion },
      apiKey,
    );
    expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    const usage = await s.request(
      'GET',
      '/v1/billing/usage?from=2031-05-01T00:00:00Z&to=2031-06-01T00:00:00Z&granularity=month',
      undefined,
      apiKey,
    );
    expect(usage.json.totals).toMatchObject({ 'challenges.created': 5, 'presence.verified': 1 });
    const events = await thresholdEvents(tenantId);
    expect(events.map((e) => [e.thresholdPercent, e.used])).toEqual([
      [80, 4],
      [100, 5],
    ]);
    expect(events[0]).toMatchObject({ quota: 5, period: '2031-05', resetsAt: '2031-06-01T00:00:00.000Z' });
  });

  it('resets with the next period and announces each threshold once per period', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(2));
    expect((await create(apiKey)).status).toBe(201);
    expect((await create(apiKey)).status).toBe(201);
    expect((await create(apiKey)).status).toBe(429);
    s.clock.advance(3 * 86_400_000);
    try {
      expect((await create(apiKey)).status).toBe(201);
      expect((await create(apiKey)).status).toBe(201);
      expect((await create(apiKey)).status).toBe(429);
      const periods = (await thresholdEvents(tenantId)).map((e) => `${e.period}:${e.thresholdPercent}`);
      expect(periods).toEqual(['2031-05:80', '2031-05:100', '2031-06:80', '2031-06:100']);
    } finally {
      s.clock.advance(-3 * 86_400_000);
    }
  });

  it('announces thresholds crossed by lowering the quota, and a quota of 0 refuses at once', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(100));
    for (let i = 0; i < 9; i++) expect((await create(apiKey)).status).toBe(201);
    const lowered = await s.admin('PUT', `/admin/v1/tenants/${tenantId}/plan`, { plan: quotaPlan(10) });
    expect(lowered.status).toBe(200);
    expect((await thresholdEvents(tenantId)).map((e) => e.thresholdPercent)).toEqual([80]);
    expect((await create(apiKey)).status).toBe(201);
    expect((await thresholdEvents(tenantId)).map((e) => e.thresholdPercent)).toEqual([80, 100]);
    await s.admin('PUT', `/admin/v1/tenants/${tenantId}/plan`, { plan: quotaPlan(0) });
    expect((await create(apiKey)).status).toBe(429);
  });

  it('a refused creation changes nothing', async () => {
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(1));
    expect((await create(apiKey)).status).toBe(201);
    const before = (await s.testStore.rows('challenges')).filter((r) => r.tenant_id === tenantId).length;
    expect((await create(apiKey)).status).toBe(429);
    expect((await s.testStore.rows('challenges')).filter((r) => r.tenant_id === tenantId)).toHaveLength(
      before,
    );
    const usage = (await s.testStore.rows('usage_events')).filter((r) => r.tenant_id === tenantId);
    expect(usage).toHaveLength(1);
  });

  it('never exceeds the quota under parallel creations (bound 0), and every unit is metered once', async () => {
    const quota = 25;
    const { tenantId, apiKey } = await s.newTenant(quotaPlan(quota));
    for (let i = 0; i < quota - 10; i++) expect((await create(apiKey)).status).toBe(201);
    // 60 requests race for the last 10 units over 12 pooled connections.
    const results = await Promise.all(Array.from({ length: 60 }, () => create(apiKey)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((c) => c === 201)).toHaveLength(10);
    expect(statuses.filter((c) => c === 429)).toHaveLength(50);
    const challenges = (await s.testStore.rows('challenges')).filter((r) => r.tenant_id === tenantId);
    expect(challenges).toHaveLength(quota);
    const counters = (await s.testStore.rows('quota_counters')).filter((r) => r.tenant_id === tenantId);
    expect(counters.map((c) => c.used)).toEqual([quota]);
    const usage = await s.request(
      'GET',
      '/v1/billing/usage?from=2031-05-30T00:00:00Z&to=2031-05-31T00:00:00Z&granularity=day',
      undefined,
      apiKey,
    );
    expect(usage.json.totals['challenges.created']).toBe(quota);
    expect((await thresholdEvents(tenantId)).map((e) => e.thresholdPercent)).toEqual([80, 100]);
  });
});
