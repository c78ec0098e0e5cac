/**
 * Impossible and unrepresentable times are a 400 naming the field wherever the API takes one, on
 * both databases: a day past the end of its month, hour 24, and the leap second RFC 3339 allows
 * (`23:59:60Z`) but JavaScript cannot represent (Date.parse gives NaN, and a NaN handed to
 * PostgreSQL was a 500). Nothing stored changes (issue 34 §3).
 */
import { beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const TIMES = [
  '2026-01-01T23:59:60Z',
  '2026-06-30T23:59:60+00:00',
  '2026-02-30T12:00:00Z',
  '2025-02-29T00:00:00Z',
  '2026-01-01T24:00:00Z',
  '2026-02-30T25:61:00Z',
];

describeEachDialect('impossible dates', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] });
  let endpointId = '';
  beforeAll(async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['receipt.created'],
    });
    endpointId = created.json.endpoint.id;
  });

  it('answers each with a 400 naming the field, on bodies and query strings', async () => {
    for (const time of TIMES) {
      const at = encodeURIComponent(time);
      const cases = [
        {
          method: 'POST' as const,
          url: `/v1/webhooks/endpoints/${endpointId}/recover`,
          body: { since: time },
          field: 'body/since',
        },
        { method: 'GET' as const, url: `/v1/presence/receipts?from=${at}`, field: 'querystring/from' },
        {
          method: 'GET' as const,
          url: `/v1/presence/receipts?from=2026-01-01T00:00:00Z&to=${at}`,
          field: 'querystring/to',
        },
        {
          method: 'GET' as const,
          url: `/v1/presence/receipts/export?from=${at}&to=2026-01-02T00:00:00Z`,
          field: 'querystring/from',
        },
        {
          method: 'GET' as const,
          url: `/v1/billing/usage?from=${at}&to=2026-01-02T00:00:00Z`,
          field: 'querystring/from',
        },
      ];
      for (const c of cases) {
        const res = await s.request(c.method, c.url, c.body);
        expect(res.status, `${c.method} ${c.url} → ${JSON.stringify(res.json)}`).toBe(400);
        expect(res.json, c.url).toMatchObject({ code: 'invalid_request', errors: [{ field: c.field }] });
      }
    }
  });

  it('still accepts a real time with an offset and fractions', async () => {
    const res = await s.request('POST', `/v1/webhooks/endpoints/${endpointId}/recover`, {
      since: '2026-06-30T23:59:59.999+02:00',
    });
    expect(res.status).toBe(202);
  });
});
