/**
 * A JSON body with a member name twice in one object (`{"a":1,"a":2}`) is refused on every route
 * that takes a body, on both databases: the tenant API, the operator API and the console's JSON
 * endpoints alike, at any depth, with a 400 problem that names the member and where it is, and
 * nothing stored changes. JSON.parse would have kept the last one silently (issue 34 §3).
 */
import { createHash } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';

const SAMPLES = [
  { body: '{"a":1,"a":2}', detail: 'body: duplicate member "a"', field: 'body' },
  { body: '{"name":"k","scopes":[],"name":"k"}', detail: 'body: duplicate member "name"', field: 'body' },
  { body: '{"x":{"b":[1],"c":0,"b":2}}', detail: 'body: duplicate member "b"', field: 'body/x' },
  { body: '{"l":[{"ok":1},{"z":1, "z" :1}]}', detail: 'body: duplicate member "z"', field: 'body/l/1' },
  { body: '{"a":1,"\\u0061":2}', detail: 'body: duplicate member "a"', field: 'body' },
];

describeEachDialect('duplicate JSON members', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2033, 1, 3) });
  let apiKey = '';
  beforeAll(async () => {
    apiKey = (await s.newTenant()).apiKey;
    // The console's own tenant is made on its first request: before the snapshot, not during it.
    await s.composed.consoleSettings();
  });

  const snapshot = async () => {
    const tables: Record<string, string> = {};
    for (const table of await s.testStore.tables()) {
      const rows = (await s.testStore.rows(table as never)) as unknown as Record<string, unknown>[];
      const kept = JSON.stringify(rows.map(({ last_used_at: _ignored, ...rest }) => rest));
      tables[table] = createHash('sha256').update(kept).digest('hex');
    }
    return tables;
  };

  it('refuses them with a 400 naming the member on every route that takes a body', async () => {
    const routes = s.composed.app.routeTable.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    const families = new Set(routes.map((r) => r.url.split('/')[1]));
    expect([...families]).toEqual(expect.arrayContaining(['v1', 'admin', 'console']));
    const before = await snapshot();
    for (const route of routes) {
      const url = route.url.replace(/:[A-Za-z]+/g, 'x_00000000000000000000000000').replace('*', 'x');
      const token = url.startsWith('/admin/') ? ADMIN_TOKEN : apiKey;
      for (const sample of SAMPLES) {
        const res = await s.composed.app.inject({
          method: route.method as 'POST',
          url,
          headers: {
            authorization: `Bearer ${token}`,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          payload: sample.body,
        });
        const label = `${route.method} ${url} ${sample.body}`;
        expect(res.statusCode, `${label} → ${res.body}`).toBe(400);
        expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
        expect(res.json(), label).toMatchObject({
          code: 'invalid_request',
          detail: sample.detail,
          errors: [{ field: sample.field }],
        });
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a deeply nested body with a 4xx, never a 500 (the check does not recurse)', async () => {
    const depth = 100_000;
    const bodies = [
      '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
      '{"a":'.repeat(depth) + '{"b":1,"b":2}' + '}'.repeat(depth),
      `{"x":${'['.repeat(depth)}${']'.repeat(depth)}}`,
    ];
    for (const payload of bodies) {
      const res = await s.composed.app.inject({
        method: 'POST',
        url: '/v1/presence/challenge',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(400);
      expect(res.json().code).toBe('invalid_request');
    }
  });

  it('still accepts the same name in two different objects', async () => {
    const res = await s.request(
      'POST',
      '/v1/presence/challenge',
      { actionHashHex: 'ab'.repeat(32), purpose: 'payout' },
      apiKey,
    );
    expect(res.status).toBe(201);
    const nested = await s.composed.app.inject({
      method: 'PUT',
      url: '/v1/policy',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      payload: '{"rpId":"app.example","allowedOrigins":["https://app.example"],"x":{"rpId":1}}',
    });
    // Refused by the schema (an unknown member), not as a duplicate: rpId appears once per object.
    expect(nested.statusCode).toBe(400);
    expect(nested.json().detail).not.toContain('duplicate');
  });
});
