/**
 * A JSON body holding a string that is not well-formed Unicode (a lone surrogate escape such as
 * `"\ud800"`) is refused with a 400 problem that names the surrogate and where it is, on both
 * databases, before anything is hashed or stored: RFC 8785 takes I-JSON only, and the Go and Python
 * guards could not hash such an action the way the service did (issue 38). A surrogate pair is
 * one character and stays accepted.
 */
import { computeActionHashSync } from '@presence/sdk/node';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';
import { ORIGIN, useTestService } from './support/test-service.js';

const APPROVAL = '"approvers":["alice"],"required":1';

const SAMPLES = [
  {
    url: '/v1/approvals',
    body: `{"action":{"type":"payout","memo":"a\\ud800"},${APPROVAL}}`,
    field: 'body/action/memo',
    escape: '\\ud800',
  },
  {
    url: '/v1/approvals',
    body: `{"action":{"\\udc00x":1},${APPROVAL}}`,
    field: 'body/action',
    escape: '\\udc00',
  },
  {
    url: '/v1/approvals',
    body: `{"action":{"list":["ok","\\uDBFF\\u0041"]},${APPROVAL}}`,
    field: 'body/action/list/1',
    escape: '\\udbff',
  },
  {
    url: '/v1/presence/credentials/options',
    body: '{"subject":"\\ude00\\ud83d"}',
    field: 'body/subject',
    escape: '\\ude00',
  },
];

describeEachDialect('lone surrogates in a JSON body', (dialect) => {
  const s = useTestService(dialect, { env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN } });

  const post = (url: string, payload: string) =>
    s.composed.app.inject({
      method: 'POST',
      url,
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      payload,
    });

  it('refuses each with a 400 problem naming the surrogate and its place; nothing is stored', async () => {
    for (const sample of SAMPLES) {
      const res = await post(sample.url, sample.body);
      expect(res.statusCode, `${sample.body} → ${res.body}`).toBe(400);
      expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({
        code: 'invalid_request',
        detail: `${sample.field}: holds the lone surrogate ${sample.escape}: send well-formed Unicode (I-JSON)`,
        errors: [{ field: sample.field }],
      });
    }
    expect(await s.testStore.rows('approvals')).toEqual([]);
    expect(await s.testStore.rows('registrations')).toEqual([]);
  });

  it('accepts a surrogate pair and an escaped backslash before "ud800", and hashes them as the SDK does', async () => {
    const action = { type: 'payout', memo: 'party \ud83c\udf89', path: '\\ud800' };
    const res = await post(
      '/v1/approvals',
      `{"action":{"type":"payout","memo":"party \\ud83c\\udf89","path":"\\\\ud800"},${APPROVAL}}`,
    );
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().actionHashHex).toBe(computeActionHashSync(action));
  });
});

describeEachDialect('lone surrogates on every route', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 1, 3) });
  let apiKey = '';
  beforeAll(async () => {
    apiKey = (await s.newTenant()).apiKey;
  });

  it('refuses one on every route that takes a JSON body', async () => {
    const routes = s.composed.app.routeTable.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    const families = new Set(routes.map((r) => r.url.split('/')[1]));
    expect([...families]).toEqual(expect.arrayContaining(['v1', 'admin', 'console', 'approve']));
    for (const route of routes) {
      const url = route.url.replace(/:[A-Za-z]+/g, 'x_00000000000000000000000000').replace('*', 'x');
      const res = await s.composed.app.inject({
        method: route.method as 'POST',
        url,
        headers: {
          authorization: `Bearer ${url.startsWith('/admin/') ? ADMIN_TOKEN : apiKey}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        payload: '{"x":["\\ud800"]}',
      });
      expect(res.statusCode, `${route.method} ${url} → ${res.body}`).toBe(400);
      expect(res.json(), url).toMatchObject({ errors: [{ field: 'body/x/0' }] });
    }
  });
});
