/**
 * The keyless routes of the hosted pages (`/approve/{token}/…`, `/enroll/{token}/…`), derived from
 * the app's route table: the token in the path is their only credential. An unknown token is a
 * 404, a malformed one or a bad body a 400, never a 5xx and never a change to stored data; every
 * request counts against a per-address window (429 beyond it).
 */
import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService, type TestService } from './support/test-service.js';

const LIMIT = 40;

/** A body each POST route accepts (the decide and finish bodies are WebAuthn JSON: left to the flow tests). */
const VALID_BODIES: Record<string, unknown> = {
  '/approve/:token/options': { intent: 'approve' },
  '/enroll/:token/options': {},
};

async function snapshot(s: TestService): Promise<string> {
  const hash = createHash('sha256');
  for (const table of await s.testStore.tables()) {
    const rows = (await s.testStore.rows(table as never)) as unknown as Record<string, unknown>[];
    hash.update(table + JSON.stringify(rows.map(({ last_used_at: _ignored, ...rest }) => rest)));
  }
  return hash.digest('hex');
}

describeEachDialect('approval and enrollment link routes', (dialect) => {
  const s = useTestService(dialect, { env: { PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: String(LIMIT) } });
  // The JSON routes; the HTML pages GET /approve/:token and /enroll/:token answer an HTML 404
  // (test/malformed-requests.test.ts, test/problem-pages.test.ts).
  const linkRoutes = () =>
    s.composed.app.routeTable.filter((r) => /^\/(approve|enroll)\/:token\//.test(r.url));

  it('answers unknown and malformed tokens and bad bodies with 4xx problems and changes nothing', async () => {
    const routes = linkRoutes();
    expect(routes.map((r) => `${r.method} ${r.url}`).sort()).toEqual([
      'GET /approve/:token/state',
      'GET /enroll/:token/state',
      'POST /approve/:token/decide',
      'POST /approve/:token/options',
      'POST /enroll/:token/finish',
      'POST /enroll/:token/options',
    ]);
    await s.enroll('sec-1');
    await s.request('POST', '/v1/approvals', { action: { a: 1 }, approvers: ['sec-1'] });
    const before = await snapshot(s);
    let sent = 0;
    for (const route of routes) {
      const valid = VALID_BODIES[route.url];
      const cases: [string, unknown, number][] = [
        ['A'.repeat(43), valid, valid === undefined && route.method === 'POST' ? 400 : 404],
        ['short', undefined, 400],
        ['A'.repeat(43), { intent: 'approve', extra: 1, challengeId: 1 }, 400],
      ];
      for (const [token, body, status] of cases) {
        if (route.method === 'GET' && body !== undefined) continue;
        const res = await s.composed.app.inject({
          method: route.method as 'GET',
          url: route.url.replace(':token', token),
          ...(route.method === 'POST' ? { payload: (body ?? {}) as object } : {}),
        });
        sent++;
        const label = `${route.method} ${route.url} ${token.slice(0, 5)} ${JSON.stringify(body)}`;
        expect(res.statusCode, `${label} → ${res.body.slice(0, 200)}`).toBe(status);
        expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
        expect(res.headers['cache-control'], label).toBe('no-store');
      }
    }
    expect(sent).toBeLessThan(LIMIT);
    expect(await snapshot(s)).toBe(before);
  });

  it('limits requests per address: beyond the window, 429 with Retry-After', async () => {
    const url = `/approve/${'B'.repeat(43)}/state`;
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    let last = 0;
    let retryAfter: unknown;
    for (let i = 0; i <= LIMIT; i++) {
      const res = await s.composed.app.inject({ method: 'GET', url, headers, remoteAddress: '203.0.113.9' });
      last = res.statusCode;
      retryAfter = res.headers['retry-after'];
    }
    expect(last).toBe(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });
});
