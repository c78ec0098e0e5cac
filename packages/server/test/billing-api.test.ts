/**
 * The billing HTTP surface: range validation, scopes, tenant isolation, invoice listing with the
 * live draft and pagination, the printable document, and the operator API (token, paid, void).
 */
import { beforeAll, expect, it } from 'vitest';
import { closePeriod } from '../src/domain/billing/close-period-for-tenants.js';
import { recordUsage } from '../src/domain/usage/record-usage.js';
import { ADMIN_TOKEN, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const NOW = Date.UTC(2033, 4, 17, 10, 30); // 17 May 2033
const plan = {
  name: 'team <b>',
  currency: 'EUR',
  currencyExponent: 2,
  monthlyChallengeQuota: null,
  meters: {
    'presence.verified': {
      included: 2,
      tiers: [
        { upTo: 3, unitPriceMinor: '12.5' },
        { upTo: null, unitPriceMinor: '0.2' },
      ],
    },
  },
};

describeEachDialect('billing API', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 1, 3) });
  let tenant: { tenantId: string; apiKey: string };
  beforeAll(async () => {
    tenant = await s.newTenant(plan);
    let n = 0;
    for (const [at, quantity] of [
      [Date.UTC(2033, 1, 9), 4],
      [Date.UTC(2033, 2, 2), 7],
      [Date.UTC(2033, 4, 2), 10],
    ] as const) {
      s.clock.ms = at;
      await s.deps.store.transaction((tx) =>
        recordUsage(s.deps, tx, tenant.tenantId, 'presence.verified', `v_${n++}`, quantity),
      );
    }
    s.clock.ms = NOW;
    await closePeriod(s.deps, { period: '2033-03', tenantId: tenant.tenantId });
  });

  const get = (url: string, key = tenant.apiKey) => s.request('GET', url, undefined, key);

  it.each([
    ['from=2033-05-01T00:00:00Z&to=2033-04-01T00:00:00Z', 'querystring/to'],
    ['from=2033-05-01T00:00:00Z&to=2033-05-01T00:00:00Z', 'querystring/to'],
    ['from=2033-05-01T00:30:00Z&to=2033-05-02T00:00:00Z&granularity=hour', 'querystring/from'],
    ['from=2033-05-01T00:00:00Z&to=2033-05-02T12:00:00Z', 'querystring/to'],
    ['from=2033-05-02T00:00:00Z&to=2033-06-01T00:00:00Z&granularity=month', 'querystring/from'],
    ['from=2033-01-01T00:00:00Z&to=2033-02-02T00:00:00Z&granularity=hour', 'querystring/to'],
    ['from=2030-01-01T00:00:00Z&to=2031-01-03T00:00:00Z&granularity=day', 'querystring/to'],
    ['from=2000-01-01T00:00:00Z&to=2010-02-01T00:00:00Z&granularity=month', 'querystring/to'],
    ['from=yesterday&to=2033-05-01T00:00:00Z', 'querystring/from'],
    ['to=2033-05-01T00:00:00Z', 'querystring/from'],
    ['from=2033-05-01T00:00:00Z', 'querystring/to'],
    ['from=2033-05-01T00:00:00Z&to=2033-06-01T00:00:00Z&granularity=week', 'querystring/granularity'],
  ])('rejects a bad range %s with a 400 naming %s', async (query, field) => {
    const res = await get(`/v1/billing/usage?${query}`);
    expect(res.status).toBe(400);
    expect(res.json.code).toBe('invalid_request');
    expect(res.json.errors.map((e: any) => e.field)).toContain(field);
  });

  it('answers the current billing period when neither from nor to is given', async () => {
    const res = await get('/v1/billing/usage');
    expect(res.status).toBe(200);
    expect(res.json.from).toBe('2033-05-01T00:00:00.000Z');
    expect(res.json.to).toBe('2033-06-01T00:00:00.000Z');
    expect(res.json.granularity).toBe('day');
    expect(res.json.series).toHaveLength(31);
    expect(res.json.totals['presence.verified']).toBe(10);
  });

  it('answers the longest allowed ranges, every bucket and meter present', async () => {
    const hours = await get(
      '/v1/billing/usage?from=2033-05-01T00:00:00Z&to=2033-06-01T00:00:00Z&granularity=hour',
    );
    expect(hours.json.series).toHaveLength(744);
    expect(hours.json.totals).toEqual({
      'challenges.created': 0,
      'presence.verified': 10,
      'presence.denied': 0,
      'receipts.exported': 0,
      'webhooks.delivered': 0,
    });
    const days = await get(
      '/v1/billing/usage?from=2032-05-17T00:00:00%2B00:00&to=2033-05-18T00:00:00Z&granularity=day',
    );
    expect(days.json).toMatchObject({ from: '2032-05-17T00:00:00.000Z', granularity: 'day' });
    expect(days.json.series).toHaveLength(366);
    const months = await get(
      '/v1/billing/usage?from=2023-06-01T00:00:00Z&to=2033-06-01T00:00:00Z&granularity=month',
    );
    expect(months.json.series).toHaveLength(120);
    expect(months.json.totals['presence.verified']).toBe(21);
  });

  it('requires billing:read and keeps tenants apart', async () => {
    const narrow = await s.keyWith(tenant.tenantId, ['challenges:write']);
    expect((await get('/v1/billing/invoices', narrow)).status).toBe(403);
    expect(
      (await get('/v1/billing/usage?from=2033-05-01T00:00:00Z&to=2033-06-01T00:00:00Z', narrow)).status,
    ).toBe(403);
    expect((await get('/v1/billing/invoices', '')).status).toBe(401);
    const other = await s.newTenant();
    const mine = (await get('/v1/billing/invoices')).json.data;
    const theirs = await get('/v1/billing/invoices', other.apiKey);
    expect(theirs.json.data.map((i: any) => i.invoiceId)).toEqual(['draft_2033-05']);
    expect(theirs.json.data[0].totalMinor).toBe(0);
    const finalized = mine.find((i: any) => i.status === 'open');
    expect((await get(`/v1/billing/invoices/${finalized.invoiceId}`, other.apiKey)).status).toBe(404);
    expect((await get(`/v1/billing/invoices/${finalized.invoiceId}.html`, other.apiKey)).status).toBe(404);
    const usage = await get(
      '/v1/billing/usage?from=2033-05-01T00:00:00Z&to=2033-06-01T00:00:00Z&granularity=month',
      other.apiKey,
    );
    expect(usage.json.totals['presence.verified']).toBe(0);
  });

  it('lists the live drafts then finalized invoices, newest first, page by page', async () => {
    const all = (await get('/v1/billing/invoices')).json;
    expect(all.data.map((i: any) => [i.period, i.status, i.number])).toEqual([
      ['2033-05', 'draft', null],
      ['2033-04', 'draft', null],
      ['2033-03', 'open', 'INV-000002'],
      ['2033-02', 'open', 'INV-000001'],
    ]);
    expect(all.nextCursor).toBeNull();
    // 10 verified: 2 included, 3 at 12.5, 5 at 0.2 → 37.5 + 1 = 38.5 → 39 (half-up)
    expect(all.data[0]).toMatchObject({
      invoiceId: 'draft_2033-05',
      totalMinor: 39,
      computedAt: new Date(NOW).toISOString(),
    });
    expect(all.data[0].lines.find((l: any) => l.meter === 'presence.verified')).toMatchObject({
      quantity: 10,
      includedQuantity: 2,
      unitPriceMinor: null,
      amountMinorExact: '38.5',
      amountMinor: 39,
    });
    const seen = [];
    let cursor: string | null = null;
    do {
      const page: any = (await get(`/v1/billing/invoices?limit=1${cursor ? `&cursor=${cursor}` : ''}`)).json;
      seen.push(...page.data.map((i: any) => i.invoiceId));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.data.map((i: any) => i.invoiceId));
    const open = (await get('/v1/billing/invoices?status=open&limit=1')).json;
    expect(open.data.map((i: any) => i.number)).toEqual(['INV-000002']);
    const forged = await get(`/v1/billing/invoices?status=draft&cursor=${open.nextCursor}`);
    expect(forged.status).toBe(400);
    expect((await get('/v1/billing/invoices/draft_2033-05')).json.status).toBe('draft');
    const closed = await get('/v1/billing/invoices/draft_2033-03');
    expect(closed.status).toBe(404);
    expect(closed.json.detail).toContain(all.data[2].invoiceId);
    expect((await get('/v1/billing/invoices/draft_2033-09')).status).toBe(404);
    expect((await get('/v1/billing/invoices/draft_2032-01')).status).toBe(404);
  });

  it('serves a printable, escaped, script-free HTML document', async () => {
    const list = (await get('/v1/billing/invoices?status=open')).json.data;
    const res = await get(`/v1/billing/invoices/${list[0].invoiceId}.html`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(String(res.headers['content-security-policy'])).toMatch(/^default-src 'none'; style-src 'sha256-/);
    expect(res.body).toContain('Acme &lt;Payments&gt; &amp; Co');
    expect(res.body).toContain('team &lt;b&gt;');
    expect(res.body).not.toContain('<script');
    expect(res.body).toContain('INV-000002');
    expect(res.body).toContain('EUR 0.002'); // the fractional unit price, exactly, in major units
    const draft = await get('/v1/billing/invoices/draft_2033-05.html');
    expect(draft.body).toContain('Not final');
  });

  it('lets only the operator mark invoices paid or void, once', async () => {
    const [march, february] = (await get('/v1/billing/invoices?status=open')).json.data;
    const pay = (id: string, token?: string) =>
      s.admin('POST', `/admin/v1/invoices/${id}/pay`, { note: 'SEPA 42' }, token);
    expect((await pay(march.invoiceId, tenant.apiKey)).status).toBe(401);
    expect((await pay(march.invoiceId, `${ADMIN_TOKEN}x`)).status).toBe(401);
    expect((await s.request('POST', `/admin/v1/invoices/${march.invoiceId}/pay`, {}, '')).status).toBe(401);
    const paid = await pay(march.invoiceId);
    expect(paid.json).toMatchObject({
      status: 'paid',
      note: 'SEPA 42',
      paidAt: new Date(NOW).toISOString(),
    });
    expect((await pay(march.invoiceId)).json.status).toBe('paid');
    const voidPaid = await s.admin('POST', `/admin/v1/invoices/${march.invoiceId}/void`, {});
    expect(voidPaid.status).toBe(409);
    const voided = await s.admin('POST', `/admin/v1/invoices/${february.invoiceId}/void`, {});
    expect(voided.json).toMatchObject({
      status: 'void',
      totalMinor: february.totalMinor,
      lines: february.lines,
    });
    expect((await pay(february.invoiceId)).status).toBe(409);
    expect((await s.admin('POST', '/admin/v1/invoices/inv_00000000000000000000000000/pay', {})).status).toBe(
      404,
    );
  });

  it('lets the operator read and assign plans and close periods', async () => {
    const other = await s.newTenant();
    const current = await s.admin('GET', `/admin/v1/tenants/${other.tenantId}/plan`);
    expect(current.json).toMatchObject({ source: 'default', effectiveFrom: null, plan: { name: 'free' } });
    const bad = await s.admin('PUT', `/admin/v1/tenants/${other.tenantId}/plan`, {
      plan: { ...plan, meters: { 'presence.verified': { tiers: [{ upTo: 5, unitPriceMinor: '1' }] } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.errors[0].field).toBe('/plan/meters/presence.verified/tiers/0/upTo');
    const past = await s.admin('PUT', `/admin/v1/tenants/${other.tenantId}/plan`, {
      plan,
      effectiveFrom: '2033-04',
    });
    expect(past.json.errors[0].field).toBe('/effectiveFrom');
    const set = await s.admin('PUT', `/admin/v1/tenants/${other.tenantId}/plan`, {
      plan,
      effectiveFrom: '2033-07',
    });
    expect(set.json).toMatchObject({ source: 'tenant', effectiveFrom: '2033-07' });
    expect((await s.admin('GET', `/admin/v1/tenants/${other.tenantId}/plan`)).json.source).toBe('default');
    expect((await s.admin('POST', '/admin/v1/billing/periods/2033-05/close', {})).status).toBe(409);
    const closed = await s.admin('POST', '/admin/v1/billing/periods/2033-04/close', {});
    expect(
      closed.json.invoices.filter((i: any) => i.tenantId === tenant.tenantId).map((i: any) => i.number),
    ).toEqual(['INV-000003']);
    expect((await s.admin('POST', '/admin/v1/billing/periods/2033-04/close', {})).json.invoices).toEqual([]);
  });
});
