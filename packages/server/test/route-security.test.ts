/**
 * Route-complete security, generated from the app's own route table (app.routeTable, recorded
 * by an onRoute hook), on both databases. For every /v1 route:
 *   - no key, or a key that does not exist → 401 problem with WWW-Authenticate;
 *   - a key of the same tenant holding every scope but the route's → 403 insufficient_scope;
 *   - with path ids belonging to another tenant (seeded below) → 404 not_found,
 * and none of it changes stored data. A new route is covered without anyone writing a test:
 * its path ids come from SEEDED_IDS by parameter name, its body from its schema. A route that
 * cannot be covered must be listed in NOT_COVERED with a reason; an unlisted gap fails.
 */
import { createHash } from 'node:crypto';
import { SCOPES, type Scope } from '@presence/contract';
import { Value } from '@sinclair/typebox/value';
import { beforeAll, expect, it } from 'vitest';
import { closePeriod } from '../src/domain/billing/close-period-for-tenants.js';
import type { RouteEntry } from '../src/http/route-table.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService, type TestService } from './support/test-service.js';

/** Routes outside the API-key scheme, each with why the scope checks do not apply. */
const OUTSIDE_API_KEYS: { pattern: RegExp; reason: string }[] = [
  { pattern: /^\/(healthz|readyz)$/, reason: 'liveness and readiness probes are public' },
  { pattern: /^\/\.well-known\//, reason: 'published signing keys are public by design' },
  { pattern: /^\/(openapi\.json|docs)(\/|$)/, reason: 'the API description is public' },
  {
    pattern: /^\/(assets\/.*)?$/,
    reason: 'the front page and its assets are public (test/front-pages.test.ts)',
  },
  {
    pattern: /^\/sdk\/presence-sdk\.tgz$/,
    reason: 'the SDK tarball is public (docs/integration.md#1-install-and-create-a-client)',
  },
  {
    pattern: /^\/sdk\/presence-guard\.tar\.gz$/,
    reason: "the Python guard's sdist is public (docs/executor-guards.md#installing)",
  },
  { pattern: /^\/problems(\/|$)/, reason: 'the pages that describe error codes (problem types) are public' },
  { pattern: /^\/admin\/v1\//, reason: 'operator routes use PRESENCE_ADMIN_TOKEN: checked below' },
  {
    pattern: /^\/links\/assets\//,
    reason:
      "the hosted pages' stylesheet and scripts are public (test/browser/approval-pages.browser.test.ts)",
  },
  { pattern: /^\/demo(\/|$)/, reason: 'the demo page is dev-tenant only (portal/demo.test.ts)' },
  {
    pattern: /^\/(approve|enroll)\/:token(\/|$)/,
    reason:
      'the hosted approval and enrollment pages: the link token is the only credential (test/approval-links-security.test.ts)',
  },
  {
    pattern: /^\/console(\/|$)/,
    reason: 'the tenant console uses passkey sessions and CSRF tokens, not API keys (test/console.test.ts)',
  },
];
/** `METHOD /v1/...` routes that the generated cases cannot cover, with the reason and where they are covered instead. */
const NOT_COVERED: Record<string, string> = {};
/** Request bodies for routes whose body schema cannot be generated (formats, patterns). */
const SAMPLE_BODIES: Record<string, unknown> = {
  'POST /v1/webhooks/endpoints/:endpointId/recover': { since: '2020-01-01T00:00:00Z' },
  'PATCH /v1/webhooks/endpoints/:endpointId': { description: 'changed by another tenant' },
};

const key = (r: RouteEntry) => `${r.method} ${r.url}`;
const paramsOf = (url: string) => [...url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1]!);
const fill = (url: string, ids: Record<string, string>) =>
  url.replace(/:([A-Za-z]+)/g, (_, n: string) => ids[n]!);

function bodyFor(route: RouteEntry): unknown {
  if (route.bodySchema === undefined) return undefined;
  if (key(route) in SAMPLE_BODIES) return SAMPLE_BODIES[key(route)];
  try {
    const body: unknown = Value.Create(route.bodySchema as never);
    if (Value.Check(route.bodySchema as never, body)) return body;
  } catch {
    // falls through: the schema needs a sample
  }
  throw new Error(`${key(route)}: add a sample body to SAMPLE_BODIES or list the route in NOT_COVERED`);
}

/** Everything stored except key use times (authentication legitimately records them). */
async function snapshot(s: TestService): Promise<string> {
  const hash = createHash('sha256');
  for (const table of await s.testStore.tables()) {
    const rows = (await s.testStore.rows(table as never)) as unknown as Record<string, unknown>[];
    hash.update(table + JSON.stringify(rows.map(({ last_used_at: _ignored, ...rest }) => rest)));
  }
  return hash.digest('hex');
}

/** One id per path parameter name, all belonging to `other`, a second tenant. */
async function seedOtherTenant(s: TestService, other: { tenantId: string; apiKey: string }) {
  const as = async (method: 'GET' | 'POST', url: string, body?: unknown) => {
    const res = await s.request(method, url, body, other.apiKey);
    if (res.status >= 300) throw new Error(`seeding ${method} ${url}: ${JSON.stringify(res.json)}`);
    return res.json;
  };
  const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
  const options = await as('POST', '/v1/presence/credentials/options', { subject: 'bob' });
  const enrolled = await as('POST', '/v1/presence/credentials', {
    registrationId: options.registrationId,
    credential: authenticator.register({ challenge: options.publicKey.challenge }),
  });
  const challenge = await as('POST', '/v1/presence/challenge', {
    actionHashHex: 'cd'.repeat(32),
    subject: 'bob',
  });
  const verified = await as('POST', '/v1/presence/verify', {
    challengeId: challenge.challengeId,
    assertion: authenticator.assert({ challenge: challenge.publicKey.challenge }),
  });
  const endpoint = await as('POST', '/v1/webhooks/endpoints', {
    url: 'http://127.0.0.1:9/hook',
    events: ['receipt.created'],
  });
  const delivery = await as('POST', `/v1/webhooks/endpoints/${endpoint.endpoint.id}/test`, {});
  const keys = await as('GET', '/v1/keys');
  const approval = await as('POST', '/v1/approvals', { action: { type: 'seed' }, approvers: ['bob'] });
  // A finalized invoice: draft ids name a period, not a tenant, so only a closed period gives one.
  const period = new Date(s.clock.now()).toISOString().slice(0, 7);
  s.clock.advance(40 * 86_400);
  await closePeriod(s.composed.deps, { period, tenantId: other.tenantId });
  const invoices = await as('GET', '/v1/billing/invoices');
  return {
    credentialId: enrolled.credential.credentialRef ?? enrolled.credential.id,
    challengeId: challenge.challengeId,
    receiptId: verified.receiptId,
    endpointId: endpoint.endpoint.id,
    deliveryId: delivery.delivery.id,
    keyId: keys.data[0].keyId,
    approvalId: approval.approvalId,
    invoiceId: invoices.data.find((i: { invoiceId: string }) => !i.invoiceId.startsWith('draft_')).invoiceId,
  } as Record<string, string>;
}

describeEachDialect('route-complete security', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] });
  let routes: RouteEntry[];
  let otherIds: Record<string, string>;
  let other: { tenantId: string; apiKey: string };
  beforeAll(async () => {
    routes = s.composed.app.routeTable.filter((r) => !OUTSIDE_API_KEYS.some((o) => o.pattern.test(r.url)));
    other = await s.newTenant();
    otherIds = await seedOtherTenant(s, other);
  });
  /** Authentication runs before the body is read, so only the 404 case needs a valid body. */
  const send = (route: RouteEntry, ids: Record<string, string>, authorization?: string, validBody = false) =>
    s.composed.app.inject({
      method: route.method as 'GET',
      url: fill(route.url, ids),
      headers: authorization === undefined ? {} : { authorization },
      ...(route.bodySchema === undefined ? {} : { payload: (validBody ? bodyFor(route) : {}) as object }),
    });
  const expectProblem = (
    res: { statusCode: number; headers: Record<string, unknown>; body: string },
    status: number,
    code: string,
    label: string,
  ) => {
    expect(res.statusCode, `${label} → ${res.statusCode} ${res.body.slice(0, 200)}`).toBe(status);
    expect(String(res.headers['content-type']), label).toMatch(/^application\/problem\+json/);
    expect(JSON.parse(res.body).code, label).toBe(code);
  };

  it('knows every route: each is under /v1 with a scope, outside the API-key scheme with a reason, or listed', () => {
    const unscoped = routes.filter((r) => r.scope === undefined && !(key(r) in NOT_COVERED)).map(key);
    expect(unscoped, 'routes with no scope: give them config.scope or list them with a reason').toEqual([]);
    expect(
      routes.filter((r) => !r.url.startsWith('/v1/')).map(key),
      'routes outside /v1 need a listed reason',
    ).toEqual([]);
    expect(routes.length).toBeGreaterThan(30);
    const missing = [...new Set(routes.flatMap((r) => paramsOf(r.url)))].filter(
      (p) => otherIds[p] === undefined,
    );
    expect(missing, 'path parameters without a seeded id: seed one in seedOtherTenant').toEqual([]);
  });

  it('answers 401 without a key or with an unknown one, 403 without the route scope, 404 for another tenant ids, and changes nothing', async () => {
    const before = await snapshot(s);
    const keysWithout = new Map<Scope, string>();
    for (const scope of SCOPES) keysWithout.set(scope, await s.keyWith(SCOPES.filter((x) => x !== scope)));
    const afterKeys = await snapshot(s);
    let cases = 0;
    for (const route of routes.filter((r) => r.scope !== undefined && !(key(r) in NOT_COVERED))) {
      const label = key(route);
      const none = await send(route, otherIds);
      expectProblem(none, 401, 'unauthorized', `${label} without a key`);
      expect(none.headers['www-authenticate'], label).toBe('Bearer realm="presence"');
      expectProblem(
        await send(route, otherIds, `Bearer presence_${'0'.repeat(49)}`),
        401,
        'unauthorized',
        `${label} unknown key`,
      );
      expectProblem(
        await send(route, otherIds, `Bearer ${keysWithout.get(route.scope!)}`),
        403,
        'insufficient_scope',
        `${label} without ${route.scope}`,
      );
      cases += 3;
      if (paramsOf(route.url).length > 0) {
        expectProblem(
          await send(route, otherIds, `Bearer ${s.apiKey}`, true),
          404,
          'not_found',
          `${label} with another tenant's ids`,
        );
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(100);
    expect(await snapshot(s), 'a refused request changed stored data').toBe(afterKeys);
    expect(before).not.toBe(afterKeys);
  });

  it("uses real ids: the other tenant's own key reads each of them", async () => {
    for (const route of routes.filter(
      (r) => r.method === 'GET' && r.scope !== undefined && paramsOf(r.url).length > 0,
    )) {
      const res = await send(route, otherIds, `Bearer ${other.apiKey}`);
      expect(res.statusCode, `${key(route)} → ${res.body.slice(0, 200)}`).toBe(200);
    }
  });

  it('refuses operator routes without the operator token, or with an API key as one', async () => {
    const operator = s.composed.app.routeTable.filter((r) => r.url.startsWith('/admin/v1/'));
    expect(operator.length).toBeGreaterThan(0);
    for (const route of operator) {
      const ids = Object.fromEntries(
        paramsOf(route.url).map((p) => [p, p === 'period' ? '2020-01' : other.tenantId]),
      );
      for (const authorization of [undefined, `Bearer ${s.apiKey}`]) {
        const res = await s.composed.app.inject({
          method: route.method as 'GET',
          url: fill(route.url, ids),
          headers: authorization === undefined ? {} : { authorization },
          ...(route.bodySchema === undefined ? {} : { payload: {} }),
        });
        expect([401, 404], `${key(route)} → ${res.statusCode}`).toContain(res.statusCode);
        expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
      }
    }
  });
});
