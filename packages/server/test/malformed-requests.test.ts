/**
 * Bad input never reaches a 500 and never changes stored data: a few hundred generated
 * malformed requests against every route of the OpenAPI document, each answered with a 4xx
 * problem+json that names the problem. The console, hidden from that document, has its own
 * fuzz in malformed-console-requests.test.ts; duplicate JSON members on every route are in
 * duplicate-members.test.ts.
 */
import fc from 'fast-check';
import { beforeAll, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { describeEachDialect } from './support/each-dialect.js';
import { type TestService, useTestService } from './support/test-service.js';

/** Migration bookkeeping changes only when migrations run, which they do not during requests. */
const EXCLUDED_TABLES = new Set(['schema_migrations']);

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Everything stored, minus `last_used_at` (authentication legitimately records key use). */
async function snapshot(s: TestService): Promise<string> {
  const hash = createHash('sha256');
  for (const table of await s.testStore.tables()) {
    if (EXCLUDED_TABLES.has(table)) continue;
    const rows = (await s.testStore.rows(table as never)) as unknown as Record<string, unknown>[];
    hash.update(JSON.stringify(rows.map(({ last_used_at: _ignored, ...rest }) => rest)));
  }
  return hash.digest('hex');
}

const badIds = [
  'x',
  '%E0%A4%A',
  'chl_',
  '..%2F..%2Fetc',
  'cred_' + 'Z'.repeat(40),
  '%00',
  "'; drop table receipts; --",
  'a'.repeat(2000),
];
const badBodies = fc.oneof(
  fc.constant('{"unterminated'),
  fc.constant('[]'),
  fc.constant('null'),
  fc.constant('"string"'),
  fc.constant('12345'),
  fc.constant('{"__proto__": {"polluted": true}}'),
  // Values of the wrong JSON type are never coerced (a number for a string, a string for a number or boolean).
  fc.constant(`{"actionHashHex":"${'ab'.repeat(32)}","subject":0}`),
  fc.constant(`{"actionHashHex":"${'ab'.repeat(32)}","ttlSeconds":"60"}`),
  fc.constant('{"name":"k","scopes":"keys:manage"}'),
  fc.constant('{"enabled":"true","gracePeriodSeconds":"60"}'),
  fc
    .dictionary(
      fc.string({ maxLength: 12 }).map((k) => `zz_${k}`),
      fc.jsonValue({ maxDepth: 2 }),
      { minKeys: 1, maxKeys: 4 },
    )
    .map((o) => JSON.stringify(o)),
  fc
    .record({
      actionHashHex: fc.oneof(fc.string(), fc.integer(), fc.constant('G'.repeat(64))),
      subject: fc.oneof(
        fc.constant(''),
        fc.constant('has space'),
        fc.string({ minLength: 200, maxLength: 300 }),
      ),
    })
    .map((o) => JSON.stringify(o)),
  fc
    .record({
      challengeId: fc.oneof(fc.integer(), fc.constant(null), fc.constant('')),
      assertion: fc.jsonValue({ maxDepth: 2 }),
    })
    .map((o) => JSON.stringify(o)),
);
const badQueries = fc.oneof(
  fc.constant('limit=0'),
  fc.constant('limit=1001'),
  fc.constant('limit=abc'),
  fc.constant('cursor=forged.cursor'),
  fc.constant('cursor=' + 'A'.repeat(2000)),
  fc.constant('subject=' + encodeURIComponent('bad subject with spaces')),
  fc.constant('includeRevoked=maybe'),
  fc.constant('unknown=1'),
);

function routesOf(openapi: {
  paths: Record<string, Record<string, unknown>>;
}): { method: Method; path: string }[] {
  return Object.entries(openapi.paths).flatMap(([path, ops]) =>
    Object.keys(ops)
      .map((m) => m.toUpperCase())
      .filter((m): m is Method => ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(m))
      .map((method) => ({ method, path })),
  );
}

function expectProblem(
  res: { statusCode: number; headers: Record<string, unknown>; body: string },
  fullLabel: string,
) {
  const label = fullLabel.length > 160 ? `${fullLabel.slice(0, 160)}…` : fullLabel;
  expect(res.statusCode, `${label} → ${res.statusCode} ${res.body.slice(0, 200)}`).toBeGreaterThanOrEqual(
    400,
  );
  expect(res.statusCode, label).toBeLessThan(500);
  expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  expect(typeof body.code, label).toBe('string');
  expect(typeof body.detail === 'string' && body.detail.length > 0, label).toBe(true);
  expect(body.status, label).toBe(res.statusCode);
  expect(typeof body.requestId, label).toBe('string');
}

describeEachDialect('malformed requests', (dialect) => {
  const s = useTestService(dialect);
  let routes: { method: Method; path: string }[];
  beforeAll(async () => {
    await s.enroll('fuzz-subject');
    routes = routesOf((await s.composed.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  });

  const inject = (method: Method, url: string, payload?: string | Buffer, contentType = 'application/json') =>
    s.composed.app.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${s.apiKey}`,
        ...(payload === undefined ? {} : { 'content-type': contentType }),
      },
      ...(payload === undefined ? {} : { payload }),
    });

  it('answers every malformed body, query, path and content type with a 4xx problem and changes nothing', async () => {
    const before = await snapshot(s);
    let sent = 0;
    const withBody = routes.filter((r) => r.method === 'POST' || r.method === 'PUT' || r.method === 'PATCH');
    for (const route of withBody) {
      const url = route.path.replace(/\{[^}]+\}/g, 'key_00000000000000000000000000');
      for (const body of fc.sample(badBodies, { numRuns: 25, seed: 42 })) {
        const res = await inject(route.method, url, body);
        // A syntactically valid body may still reach the handler of a permissive route (a 404 for an unknown id is fine).
        expect(res.statusCode, `${route.method} ${url} ${body.slice(0, 100)}`).toBeLessThan(500);
        if (res.statusCode >= 400) expectProblem(res, `${route.method} ${url} ${body}`);
        sent++;
      }
      expectProblem(
        await inject(route.method, url, 'a=1', 'application/x-www-form-urlencoded'),
        `${route.method} ${url} form`,
      );
      expectProblem(
        await inject(route.method, url, 'x'.repeat(1024 * 1024 + 10)),
        `${route.method} ${url} oversized`,
      );
      sent += 2;
    }
    for (const route of routes.filter((r) => r.path.includes('{'))) {
      for (const id of badIds) {
        const url = route.path.replace(/\{[^}]+\}/g, encodeURIComponent(id));
        expectProblem(
          await inject(route.method, url, route.method === 'POST' ? '{}' : undefined),
          `${route.method} ${url}`,
        );
        sent++;
      }
    }
    for (const route of routes.filter(
      (r) => r.method === 'GET' && !r.path.includes('{') && r.path.startsWith('/v1/'),
    )) {
      for (const query of fc.sample(badQueries, { numRuns: 12, seed: 7 })) {
        expectProblem(await inject('GET', `${route.path}?${query}`), `GET ${route.path}?${query}`);
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(200);
    expect(await snapshot(s)).toBe(before);
  });

  it('answers garbage tokens of the hosted pages with an HTML 404 or a 4xx problem, never a 5xx, and changes nothing', async () => {
    const before = await snapshot(s);
    const tokens = [
      ...badIds,
      'A'.repeat(43),
      '<script>alert(1)</script>',
      '%F0%9F%92%A9'.repeat(11),
      'A'.repeat(42) + '%E2%80%AE',
      'A'.repeat(100_000),
      ...fc
        .sample(fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }), { numRuns: 40, seed: 3 })
        .map(encodeURIComponent),
    ];
    for (const page of ['approve', 'enroll']) {
      for (const token of tokens) {
        for (const suffix of ['', '?x=%3Cb%3E', '/']) {
          const url = `/${page}/${token}${suffix}`;
          const res = await s.composed.app.inject({ method: 'GET', url });
          const label = `GET ${url.slice(0, 120)}`;
          expect(res.statusCode, label).toBeGreaterThanOrEqual(400);
          expect(res.statusCode, label).toBeLessThan(500);
          if (String(res.headers['content-type']).startsWith('text/html')) {
            expect(res.statusCode, label).toBe(404);
            expect(res.body, label).toContain('link is not valid');
            expect(res.body, label).not.toContain('<script>alert');
          } else {
            expectProblem(res, label);
          }
        }
      }
    }
    expect(await snapshot(s)).toBe(before);
  });

  it('answers a body of an unsupported content type with 415 on every route that takes one', async () => {
    const withBody = routes.filter(
      (r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.path.startsWith('/v1/'),
    );
    expect(withBody.length).toBeGreaterThan(5);
    for (const route of withBody) {
      const url = route.path.replace(/\{[^}]+\}/g, 'key_00000000000000000000000000');
      for (const type of ['text/plain', 'text/plain; charset=utf-8', 'application/xml']) {
        const res = await inject(route.method, url, '{"subject":"x"}', type);
        expectProblem(res, `${route.method} ${url} ${type}`);
        expect(res.statusCode, `${route.method} ${url} ${type}`).toBe(415);
        expect(res.json().code).toBe('unsupported_media_type');
      }
    }
  });

  it('names the wrong field', async () => {
    const res = await inject('POST', '/v1/presence/challenge', JSON.stringify({ actionHashHex: 'nothex' }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({
      code: 'invalid_request',
      errors: [{ field: 'body/actionHashHex' }],
    });
  });
});
