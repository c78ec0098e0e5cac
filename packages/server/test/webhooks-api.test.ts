/** The /v1/webhooks API on both databases: happy paths, bad input, scopes, tenants, SSRF at registration. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import {
  createEndpoint,
  deliverDue,
  deliveriesOf,
  sendTest,
  useWebhookService,
} from './support/webhook-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

describeEachDialect('webhooks API', (dialect) => {
  const s = useWebhookService(dialect);
  let r: WebhookReceiver;
  const patch = async (id: string, body: unknown, key = s.apiKey) => {
    const res = await s.composed.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/endpoints/${id}`,
      headers: { authorization: `Bearer ${key}` },
      payload: body as object,
    });
    return { status: res.statusCode, json: res.json() };
  };
  beforeAll(async () => {
    r = await startWebhookReceiver();
  });
  afterAll(async () => {
    await r.close();
  });

  it('creates (secret shown once), lists with a cursor, gets, updates and deletes endpoints', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: `${r.url}/a`,
      events: ['receipt.created', 'presence.denied'],
      description: 'payouts',
    });
    expect(created.status).toBe(201);
    expect(created.json.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.json.endpoint).toMatchObject({
      url: `${r.url}/a`,
      enabled: true,
      description: 'payouts',
      disabledReason: null,
    });
    const id = created.json.endpoint.id;
    await createEndpoint(s, `${r.url}/b`);
    await createEndpoint(s, `${r.url}/c`);
    const first = await s.request('GET', '/v1/webhooks/endpoints?limit=2');
    const second = await s.request('GET', `/v1/webhooks/endpoints?limit=2&cursor=${first.json.nextCursor}`);
    expect(first.json.data).toHaveLength(2);
    expect(second.json.data.length).toBeGreaterThanOrEqual(1);
    expect(
      JSON.stringify([
        first.json,
        second.json,
        (await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json,
      ]),
    ).not.toMatch(/whsec_|sealed/);
    const updated = await patch(id, { events: ['credential.revoked'], description: null });
    expect(updated.json.endpoint).toMatchObject({
      events: ['credential.revoked'],
      description: null,
      url: `${r.url}/a`,
    });
    expect((await s.request('DELETE', `/v1/webhooks/endpoints/${id}`)).status).toBe(204);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}`)).status).toBe(404);
  });

  it('disabling fails queued deliveries and says why; enabling clears the reason', async () => {
    const { id } = await createEndpoint(s, r.url);
    await sendTest(s, id);
    const off = await patch(id, { enabled: false });
    expect(off.json.endpoint).toMatchObject({ enabled: false, disabledReason: 'disabled through the API' });
    expect((await deliveriesOf(s, id))[0]).toMatchObject({
      status: 'failed',
      lastError: 'endpoint disabled: disabled through the API',
    });
    expect((await s.request('POST', `/v1/webhooks/endpoints/${id}/test`, {})).json.code).toBe('conflict');
    const on = await patch(id, { enabled: true });
    expect(on.json.endpoint).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });
    const since = new Date(0).toISOString();
    expect((await s.request('POST', `/v1/webhooks/endpoints/${id}/recover`, { since })).json).toEqual({
      requeued: 1,
    });
    await deliverDue(s);
    expect((await deliveriesOf(s, id))[0].status).toBe('succeeded');
  });

  it.each([
    ['http://10.0.0.7/hook', /private/],
    ['http://169.254.169.254/latest/meta-data', /linkLocal/],
    ['http://[fd00:ec2::254]/', /uniqueLocal/],
    ['http://[::1]:8080/', /loopback/],
    ['http://100.64.1.1/', /carrierGradeNat/],
    ['http://192.0.2.1/', /reserved/],
    ['http://224.0.0.1/', /multicast/],
    ['ftp://example.com/', /only http and https/],
    ['http://user:pw@127.0.0.1/', /credentials/],
    ['http://127.0.0.1/#frag', /fragment/],
    ['not a url', /not an absolute URL/],
    ['http://no-such-host.invalid/', /does not resolve/],
  ])('refuses to register %s, naming the field', async (url, message) => {
    const res = await s.request('POST', '/v1/webhooks/endpoints', { url, events: ['receipt.created'] });
    expect(res.status).toBe(400);
    expect(res.json.errors[0]).toMatchObject({
      field: 'body/url',
      message: expect.stringMatching(message),
    });
  });

  it('re-checks a changed URL and refuses bad updates without changing anything', async () => {
    const { id } = await createEndpoint(s, r.url);
    expect((await patch(id, { url: 'http://10.1.1.1/' })).status).toBe(400);
    expect((await patch(id, {})).status).toBe(400);
    expect((await patch(id, { events: ['no.such.event'] })).json.errors[0].field).toMatch(/^body\/events/);
    expect((await patch(id, { events: [] })).status).toBe(400);
    expect((await patch(id, { secret: 'x' })).status).toBe(400);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json.endpoint.url).toBe(r.url + '/');
  });

  it('validates event types and bodies', async () => {
    const bad = [
      { url: r.url, events: ['webhook.test'] },
      { url: r.url, events: ['receipt.created', 'receipt.created'] },
      { url: r.url },
      { url: r.url, events: ['receipt.created'], extra: 1 },
      { url: 'x'.repeat(3000), events: ['receipt.created'] },
    ];
    for (const body of bad)
      expect((await s.request('POST', '/v1/webhooks/endpoints', body)).status).toBe(400);
    const { id } = await createEndpoint(s, r.url);
    expect(
      (await s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, { overlapSeconds: -1 })).status,
    ).toBe(400);
    expect(
      (await s.request('POST', `/v1/webhooks/endpoints/${id}/recover`, { since: 'yesterday' })).status,
    ).toBe(400);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}/deliveries?status=lost`)).status).toBe(400);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}/deliveries?limit=101`)).status).toBe(400);
  });

  it('requires webhooks:manage on every route and keeps tenants apart', async () => {
    const { id } = await createEndpoint(s, r.url);
    const deliveryId = await sendTest(s, id);
    const readOnly = await s.keyWith(['receipts:read']);
    const other = await s.newTenant();
    const routes: [method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown][] = [
      ['GET', '/v1/webhooks/endpoints'],
      ['POST', '/v1/webhooks/endpoints', { url: r.url, events: ['receipt.created'] }],
      ['GET', `/v1/webhooks/endpoints/${id}`],
      ['DELETE', `/v1/webhooks/endpoints/${id}`],
      ['POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, {}],
      ['POST', `/v1/webhooks/endpoints/${id}/test`, {}],
      ['GET', `/v1/webhooks/endpoints/${id}/deliveries`],
      ['POST', `/v1/webhooks/endpoints/${id}/recover`, { since: new Date(0).toISOString() }],
      ['GET', `/v1/webhooks/deliveries/${deliveryId}`],
      ['POST', `/v1/webhooks/deliveries/${deliveryId}/redeliver`, {}],
    ];
    for (const [method, url, body] of routes) {
      expect((await s.request(method, url, body, readOnly)).status, `${method} ${url}`).toBe(403);
      expect((await s.request(method, url, body, '')).status, `${method} ${url}`).toBe(401);
      const foreign = await s.request(method, url, body, other.apiKey);
      if (url === '/v1/webhooks/endpoints') expect(foreign.status).toBeLessThan(300);
      else expect(foreign.status, `${method} ${url}`).toBe(404);
    }
    expect((await patch(id, { enabled: false }, readOnly)).status).toBe(403);
    expect((await patch(id, { enabled: false }, other.apiKey)).status).toBe(404);
    expect(
      (await s.request('GET', '/v1/webhooks/endpoints', undefined, other.apiKey)).json.data.map(
        (e: any) => e.id,
      ),
    ).not.toContain(id);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json.endpoint.enabled).toBe(true);
  });
});
