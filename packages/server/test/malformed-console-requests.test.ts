/**
 * The route-wide fuzz of malformed-requests.test.ts, for the console (hidden from the OpenAPI
 * document, so listed from the route table): every form and JSON endpoint of a signed-in owner,
 * with a valid CSRF token so that input reaches validation and the handlers, gets
 * prototype-polluting names and kinds, impossible dates, huge and empty values and duplicate JSON
 * members. On both databases: never a 5xx, always a 4xx, and nothing stored changes.
 */
import { createHash } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import type { ConsoleClient } from './support/console-client.js';
import { joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { type TestService, useTestService } from './support/test-service.js';

const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype'];
const IMPOSSIBLE_DATES = [
  '2026-02-30T25:61',
  '2026-02-30T12:00',
  '2025-02-29T00:00',
  '2026-13-01T00:00',
  '2026-04-31T10:00',
  '2026-01-01T24:00',
  '0000-00-00T00:00',
  '9999-99-99T99:99',
];
const HUGE = 'x'.repeat(60_000);
/** Session activity (`last_seen_at`) and key use (`last_used_at`) are recorded on any request. */
const ACTIVITY = new Set(['last_seen_at', 'last_used_at']);

async function snapshot(s: TestService): Promise<Record<string, string>> {
  const tables: Record<string, string> = {};
  for (const table of await s.testStore.tables()) {
    const rows = (await s.testStore.rows(table as never)) as unknown as Record<string, unknown>[];
    const kept = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([k]) => !ACTIVITY.has(k))));
    tables[table] = createHash('sha256').update(JSON.stringify(kept)).digest('hex');
  }
  return tables;
}

/** Form bodies for a route whose body schema has these fields (the route's own names first). */
function badForms(fields: string[]): [string, string][][] {
  const own = fields.filter((f) => f !== '_csrf');
  const forms: [string, string][][] = PROTO_NAMES.map((name) => [[name, 'x']]);
  forms.push(...PROTO_NAMES.map((name): [string, string][] => own.map((f) => [f, name])));
  forms.push(
    own.map((f) => [f, '']),
    own.map((f) => [f, HUGE]),
    [['since', '2026-02-30T25:61']],
  );
  if (own.includes('since')) forms.push(...IMPOSSIBLE_DATES.map((d): [string, string][] => [['since', d]]));
  return forms.filter((form) => form.length > 0);
}

const BAD_JSON = [
  '{}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":1,"a":2}',
  '{"change":{"kind":"x","kind":"y"}}',
  `{"displayName":"${HUGE}"}`,
  '{"displayName":""}',
  'null',
  '[]',
  ...PROTO_NAMES.map((kind) => JSON.stringify({ kind, target: 'policy', params: {} })),
  ...PROTO_NAMES.map((kind) =>
    JSON.stringify({ change: { kind, target: 'policy', params: {} }, challengeId: 'chl_x', assertion: {} }),
  ),
];

describeEachDialect('malformed console requests', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] });
  let owner: ConsoleClient;
  let ids: Record<string, string>;

  beforeAll(async () => {
    owner = (await joinedMember(s, 'owner', 'Fuzz owner')).client;
    const endpoint = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['receipt.created'],
    });
    const member = (await s.composed.deps.store.console.members.list(s.tenantId))[0]!;
    const { credential } = await s.enroll('fuzz-subject');
    ids = {
      id: endpoint.json.endpoint.id,
      deliveryId: 'dlv_00000000000000000000000000',
      credentialId: credential.id,
      memberId: member.id,
      token: 'A'.repeat(43),
    };
  });

  const routes = () =>
    s.composed.app.routeTable.filter(
      (r) =>
        r.method === 'POST' &&
        r.url.startsWith('/console') &&
        // Signing out is meant to change the session; routes without a body schema ignore the body
        // (the sign-in and passkey options make a challenge whatever is sent; duplicate-members.test.ts
        // covers their JSON parsing).
        r.url !== '/console/sign-out' &&
        r.bodySchema !== undefined,
    );
  const urlOf = (path: string) => path.replace(/:([A-Za-z]+)/g, (_, name: string) => ids[name] ?? 'x');
  const fieldsOf = (schema: unknown) => Object.keys((schema as { properties?: object })?.properties ?? {});
  const expectRefused = (res: { status: number; body: string }, label: string) => {
    expect(res.status, `${label} → ${res.status} ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(res.status, label).toBeLessThan(500);
  };

  it('refuses malformed forms and JSON on every console endpoint with a 4xx, and changes nothing', async () => {
    const before = await snapshot(s);
    let sent = 0;
    for (const route of routes()) {
      const url = urlOf(route.url);
      for (const form of badForms(fieldsOf(route.bodySchema))) {
        expectRefused(await owner.form(url, form), `form ${url} ${JSON.stringify(form).slice(0, 120)}`);
        sent++;
      }
      for (const body of BAD_JSON) {
        const res = await s.composed.app.inject({
          method: 'POST',
          url,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            'x-csrf-token': owner.csrf,
            cookie: owner.cookie,
          },
          payload: body,
        });
        expectRefused({ status: res.statusCode, body: res.body }, `json ${url} ${body.slice(0, 120)}`);
        sent++;
      }
      expectRefused(await owner.form(url, [['name', 'x'.repeat(70 * 1024)]]), `form ${url} over 64 KiB`);
      sent++;
    }
    expect(sent).toBeGreaterThan(400);
    expect(await snapshot(s)).toEqual(before);
  });

  it('never answers a console page with a 5xx, whatever its path ids and query', async () => {
    const pages = s.composed.app.routeTable.filter((r) => r.method === 'GET' && r.url.startsWith('/console'));
    expect(pages.length).toBeGreaterThan(5);
    const values = [
      '__proto__',
      'constructor',
      '2026-02-30T25:61',
      '2026-01-01T23:59:60Z',
      '',
      HUGE.slice(0, 4000),
    ];
    // One parameter per request, so a page that knows the name reads the value (an unknown name is a 400).
    const names = ['from', 'to', 'status', 'kind', 'subject', 'cursor', 'range', 'action'];
    const before = await snapshot(s);
    for (const route of pages) {
      const urls = [
        urlOf(route.url),
        ...PROTO_NAMES.map((name) => route.url.replace(/:[A-Za-z]+|\*/g, name)),
      ];
      for (const url of new Set(urls)) {
        for (const [name, value] of names.flatMap((n) => values.map((v) => [n, v] as const))) {
          const query = `${name}=${encodeURIComponent(value)}`;
          const res = await owner.get(`${url}?${query}`);
          expect(res.status, `GET ${url}?${query.slice(0, 120)} → ${res.body.slice(0, 200)}`).toBeLessThan(
            500,
          );
        }
        const proto = await owner.get(`${url}?${PROTO_NAMES.map((n) => `${n}=1`).join('&')}`);
        expect(proto.status, `GET ${url} with Object member names`).toBeLessThan(500);
      }
    }
    expect(await snapshot(s)).toEqual(before);
  });

  it('answers an unknown change kind, named like a member of Object, with a 400 naming the field', async () => {
    for (const kind of PROTO_NAMES) {
      const res = await owner.post('/console/api/approvals/options', { kind, target: 'policy', params: {} });
      expect(res.status, kind).toBe(400);
      expect(res.json, kind).toMatchObject({ code: 'invalid_request', errors: [{ field: '/kind' }] });
    }
  });

  it('refuses an impossible date before recovering anything: a 400, no audit line, no requeue', async () => {
    const before = await snapshot(s);
    const res = await s.composed.app.inject({
      method: 'POST',
      url: `/console/webhooks/${ids.id}/recover`,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
        cookie: owner.cookie,
      },
      payload: new URLSearchParams({ since: '2026-02-30T25:61', _csrf: owner.csrf }).toString(),
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'invalid_request', errors: [{ field: 'body/since' }] });
    expect(await snapshot(s)).toEqual(before);
  });
});
