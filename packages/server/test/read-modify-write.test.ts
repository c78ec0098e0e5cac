/**
 * What the API gives is accepted back unchanged: for every resource with a PUT, the GET's
 * representation (the part a PUT replaces) goes back through the PUT as it came, a change made to
 * it sticks, and nothing else moves. The list of PUT routes comes from the live route table, so a
 * new PUT without a case here fails this suite.
 */
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { ADMIN_TOKEN, useBillingService, type BillingService } from './support/billing-service.js';

interface Case {
  url(s: BillingService, tenantId: string): string;
  call(
    s: BillingService,
    method: 'GET' | 'PUT',
    url: string,
    body: unknown,
    key: string,
  ): ReturnType<BillingService['request']>;
  /** The part of the GET response that the PUT replaces. */
  representation(got: any): any;
  /** One small change a person would make. */
  modify(representation: any): any;
}

const CASES: Record<string, Case> = {
  'PUT /v1/policy': {
    url: () => '/v1/policy',
    call: (s, method, url, body, key) => s.request(method, url, body, key),
    representation: (got) => got.rules,
    modify: (rules) => ({
      ...rules,
      allowedOrigins: [...rules.allowedOrigins, 'https://checkout.app.example'],
    }),
  },
  'PUT /admin/v1/tenants/:tenantId/plan': {
    url: (_s, tenantId) => `/admin/v1/tenants/${tenantId}/plan`,
    call: (s, method, url, body) => s.admin(method, url, body, ADMIN_TOKEN),
    representation: (got) => ({ plan: got.plan }),
    modify: (body) => ({ plan: { ...body.plan, name: 'renamed', monthlyChallengeQuota: 7 } }),
  },
};

describeEachDialect('read, modify, write', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 4, 10) });

  it('has a case for every PUT route', () => {
    const puts = s.composed.app.routeTable.filter((r) => r.method === 'PUT').map((r) => `PUT ${r.url}`);
    expect(puts.sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const [route, c] of Object.entries(CASES)) {
    it(`${route}: the GET representation goes back unchanged, and a modified one sticks`, async () => {
      const { tenantId, apiKey } = await s.newTenant();
      const url = c.url(s, tenantId);
      const before = await c.call(s, 'GET', url, undefined, apiKey);
      expect(before.status).toBe(200);
      const same = await c.call(s, 'PUT', url, c.representation(before.json), apiKey);
      expect(same.status, JSON.stringify(same.json)).toBe(200);
      expect(c.representation(same.json)).toEqual(c.representation(before.json));
      const changed = c.modify(c.representation(before.json));
      const after = await c.call(s, 'PUT', url, changed, apiKey);
      expect(after.status, JSON.stringify(after.json)).toBe(200);
      expect(c.representation((await c.call(s, 'GET', url, undefined, apiKey)).json)).toEqual(changed);
    });
  }

  it('still refuses a user verification other than required', async () => {
    const { apiKey } = await s.newTenant();
    const { json } = await s.request('GET', '/v1/policy', undefined, apiKey);
    const res = await s.request(
      'PUT',
      '/v1/policy',
      { ...json.rules, userVerification: 'preferred' },
      apiKey,
    );
    expect(res.status).toBe(400);
    expect(res.json.errors.map((e: { field: string }) => e.field)).toContain('body/userVerification');
  });
});
