/**
 * GET /metrics on the public port: absent without PRESENCE_METRICS_TOKEN, bearer-protected with
 * it, and the figures move with what the service did (decisions, request durations, the outbox
 * backlog read from the store), and every metric the shipped alert rules and dashboard query exists.
 * Both dialects.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/observability/create-metrics.js';
import { registerPoolGauges } from '../src/observability/register-store-gauges.js';
import { DIALECTS, pgAvailable } from '../src/storage/testing.js';
import { sample } from './support/metrics-text.js';
import { startTestService, type TestService } from './support/test-service.js';

const pg = await pgAvailable();
const TOKEN = randomBytes(32).toString('base64url');

for (const dialect of DIALECTS) {
  describe.skipIf(dialect === 'postgres' && !pg)(`metrics on ${dialect}`, () => {
    let s: TestService;
    let off: TestService;
    beforeAll(async () => {
      s = await startTestService(dialect, { env: { PRESENCE_METRICS_TOKEN: TOKEN } });
      off = await startTestService(dialect);
    });
    afterAll(async () => {
      await s.close();
      await off.close();
    });

    const scrape = (authorization?: string) =>
      s.composed.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization === undefined ? {} : { authorization },
      });

    it('does not serve /metrics on the public port without a token', async () => {
      const res = await off.composed.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(404);
    });

    it('refuses a missing or wrong token with a problem', async () => {
      for (const header of [undefined, 'Bearer wrong-token', `Bearer ${TOKEN}x`, TOKEN]) {
        const res = await scrape(header);
        expect(res.statusCode, String(header)).toBe(401);
        expect(res.headers['content-type']).toContain('application/problem+json');
        expect(res.json().code).toBe('unauthorized');
      }
    });

    it('counts decisions, request durations and the outbox backlog', async () => {
      const { authenticator } = await s.enroll('metrics-user');
      const challenge = await s.request('POST', '/v1/presence/challenge', {
        actionHashHex: computeActionHash({ metrics: true }),
        subject: 'metrics-user',
      });
      const body = {
        challengeId: challenge.json.challengeId,
        assertion: authenticator.assert({ challenge: challenge.json.publicKey.challenge }),
      };
      expect((await s.request('POST', '/v1/presence/verify', body)).json.decision).toBe('PRESENCE_VERIFIED');
      expect((await s.request('POST', '/v1/presence/verify', body)).json.decision).toBe(
        'CHALLENGE_ALREADY_USED',
      );
      await s.request('GET', '/v1/presence/receipts', undefined, 'prs_unknown');

      const res = await scrape(`Bearer ${TOKEN}`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const text = res.body;
      expect(sample(text, 'presence_decisions_total{decision="PRESENCE_VERIFIED"}')).toBe(1);
      expect(sample(text, 'presence_decisions_total{decision="CHALLENGE_ALREADY_USED"}')).toBe(1);
      expect(sample(text, 'presence_verify_duration_seconds_count{result="verified"}')).toBe(1);
      expect(sample(text, 'presence_verify_duration_seconds_count{result="denied"}')).toBe(1);
      const verifyCount =
        'presence_http_request_duration_seconds_count{method="POST",route="/v1/presence/verify",status="200"}';
      expect(sample(text, verifyCount)).toBe(2);
      const unauthorized =
        'presence_http_request_duration_seconds_count{method="GET",route="/v1/presence/receipts",status="401"}';
      expect(sample(text, unauthorized)).toBe(1);

      const events = await s.testStore.rows('outbox_events');
      const unfanned = events.filter((e) => e.fanned_out_at === null);
      expect(unfanned.length).toBeGreaterThan(0);
      // Tracing is off here: events record no traceparent.
      expect(events.every((e) => e.trace_parent === null)).toBe(true);
      expect(sample(text, 'presence_outbox_pending_events')).toBe(unfanned.length);
      expect(sample(text, 'presence_webhook_delivery_backlog')).toBe(0);
      const oldest = Math.min(...unfanned.map((e) => e.created_at));
      const age = sample(text, 'presence_outbox_oldest_age_seconds')!;
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThanOrEqual((Date.now() - oldest) / 1000 + 1);
      // The receipt log's integration job does not run in this service, so its lag is exported
      // from the store (the lag function itself is tested in receipt-log.test.ts).
      expect(sample(text, 'presence_receipt_log_integration_lag_seconds')).toBeGreaterThanOrEqual(0);

      for (const name of [
        'presence_webhook_deliveries_total',
        'presence_export_bytes_total',
        'presence_rate_limit_store_degraded 0',
        'nodejs_eventloop_lag_seconds',
        'process_cpu_user_seconds_total',
      ]) {
        expect(text, name).toContain(name);
      }
    });

    it('exposes every metric the shipped alert rules and dashboard query', async () => {
      // A PostgreSQL service registers its pool's gauges when it opens its pool; this suite opens
      // the store itself, so they are registered here the way the service does.
      const pool = createMetrics();
      registerPoolGauges(pool, { totalCount: 0, idleCount: 0, waitingCount: 0 }, 10);
      const text = (await scrape(`Bearer ${TOKEN}`)).body + (await pool.registry.metrics());
      const declared = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
      const docs = new URL('../../../docs/', import.meta.url);
      const rules = readFileSync(new URL('prometheus-alerts.yml', docs), 'utf8');
      const dashboard = JSON.stringify(
        JSON.parse(readFileSync(new URL('grafana-dashboard.json', docs), 'utf8')).panels.flatMap(
          (p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr),
        ),
      );
      const queried = [...`${rules}\n${dashboard}`.matchAll(/\b(?:presence|nodejs|process)_[a-z0-9_]+/g)];
      const names = new Set(queried.map((m) => m[0]));
      expect(names.size).toBeGreaterThan(10);
      // A histogram is declared once and queried by its series.
      const base = (name: string) => name.replace(/_(bucket|sum|count)$/, '');
      const missing = [...names].filter((n) => !declared.has(n) && !declared.has(base(n)));
      expect(missing).toEqual([]);
    });

    it('has a series from the start for every counter the alert rules and dashboard query', async () => {
      const text = await createMetrics().registry.metrics();
      const docs = new URL('../../../docs/', import.meta.url);
      const queries = `${readFileSync(new URL('prometheus-alerts.yml', docs), 'utf8')}\n${readFileSync(new URL('grafana-dashboard.json', docs), 'utf8')}`;
      const counters = new Set([...queries.matchAll(/\bpresence_[a-z0-9_]+_total\b/g)].map((m) => m[0]));
      expect(counters).toContain('presence_rate_limited_total');
      const lines = text.split('\n');
      const empty = [...counters].filter(
        (name) => !lines.some((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`)),
      );
      expect(empty).toEqual([]);
      for (const limit of ['key', 'tenant', 'address'])
        expect(sample(text, `presence_rate_limited_total{limit="${limit}"}`)).toBe(0);
      expect(sample(text, 'presence_decisions_total{decision="ORIGIN_NOT_ALLOWED"}')).toBe(0);
    });

    it('documents every metric of its own in docs/metrics.md', async () => {
      const pool = createMetrics();
      registerPoolGauges(pool, { totalCount: 0, idleCount: 0, waitingCount: 0 }, 10);
      const text = (await scrape(`Bearer ${TOKEN}`)).body + (await pool.registry.metrics());
      const own = [...text.matchAll(/^# TYPE (presence_\S+) /gm)].map((m) => m[1]!);
      expect(own.length).toBeGreaterThan(10);
      const table = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8');
      expect(own.filter((name) => !table.includes(`| \`${name}\` |`))).toEqual([]);
    });

    it('bounds the backlog read: counts stop at the cap', async () => {
      const measured = await s.testStore.store.webhooks.backlog.measure(1);
      expect(measured.outboxPending).toBe(1);
      expect(measured.deliveriesPending).toBe(0);
      expect(measured.oldestPendingAt).toBeTypeOf('number');
    });
  });
}
