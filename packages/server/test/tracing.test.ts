/**
 * OpenTelemetry end to end: a real server process exports its spans over OTLP/HTTP (JSON) to a
 * receiver in this test. A verify sent with a W3C traceparent yields a server span whose parent
 * is the caller's span, with SQL spans beneath it; the webhook attempt for the event that verify
 * recorded continues the same trace, and its POST carries the traceparent of its outbound span.
 * Runs the built service on each database: the SQL spans come from one driver wrapper for both
 * (a traced PostgreSQL store once hung at start-up, never giving its connections back).
 */
import { randomBytes } from 'node:crypto';
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import { type ServerProcess, serviceBuilt } from './support/server-process.js';
import { useServerProcesses } from './support/server-processes.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}

const attr = (s: OtlpSpan, key: string) => s.attributes.find((a) => a.key === key)?.value.stringValue;

const built = serviceBuilt('tracing test');
const SERVER = 2;
const CLIENT = 3;

describeEachDialect('traces over OTLP/HTTP', (dialect) => {
  if (!built) return;
  const group = useServerProcesses(dialect, { name: 'otel' });
  let collector: WebhookReceiver;
  let hooks: WebhookReceiver;
  let server: ServerProcess;

  beforeAll(async () => {
    collector = await startWebhookReceiver();
    hooks = await startWebhookReceiver();
    server = await group.start({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${collector.port}`,
      OTEL_SERVICE_NAME: 'presence-under-test',
      PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
    });
  }, 90_000);

  afterAll(async () => {
    await collector?.close();
    await hooks?.close();
  });

  const call = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${group.apiKey}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return (await res.json()) as any;
  };

  it('parents a verify on the incoming traceparent, with SQL spans, and propagates into webhooks', async () => {
    await call('/v1/webhooks/endpoints', { url: hooks.url, events: ['receipt.created'] });
    const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
    const options = await call('/v1/presence/credentials/options', { subject: 'traced' });
    await call('/v1/presence/credentials', {
      registrationId: options.registrationId,
      credential: authenticator.register({ challenge: options.publicKey.challenge }),
    });
    const challenge = await call('/v1/presence/challenge', {
      actionHashHex: computeActionHash({ traced: true }),
      subject: 'traced',
    });
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const verified = await call(
      '/v1/presence/verify',
      {
        challengeId: challenge.challengeId,
        assertion: authenticator.assert({ challenge: challenge.publicKey.challenge }),
      },
      { traceparent: `00-${traceId}-${parentId}-01` },
    );
    expect(verified.decision).toBe('PRESENCE_VERIFIED');
    await hooks.waitFor(1, 20_000);
    // SIGTERM flushes the spans still buffered.
    expect(await server.stop()).toBe(0);

    const spans: OtlpSpan[] = collector.received.flatMap((r) => {
      expect(r.headers['content-type']).toContain('application/json');
      const body = JSON.parse(r.body) as {
        resourceSpans: { resource: unknown; scopeSpans: { spans: OtlpSpan[] }[] }[];
      };
      return body.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
    });
    expect(JSON.stringify(collector.received[0]?.body)).toContain('presence-under-test');

    const request = spans.find((s) => s.traceId === traceId && s.parentSpanId === parentId);
    expect(request, 'a span whose parent is the caller').toBeDefined();
    expect(request!.kind).toBe(SERVER);
    expect(request!.name).toBe('POST /v1/presence/verify');
    expect(attr(request!, 'http.route')).toBe('/v1/presence/verify');
    // Job polls are not traced (PRESENCE_TRACE_JOBS unset): a trace starts at a request or at a
    // webhook attempt continuing one. The only other roots: the signing-key reads at start-up and
    // on refresh, /readyz's `select 1` (probes make no request span), and on SQLite the group
    // commit's own BEGIN, SAVEPOINT, RELEASE and COMMIT, which belong to no single caller.
    const roots = spans.filter((s) => s.parentSpanId === undefined || s.parentSpanId === '');
    const expectedRoot =
      /^(BEGIN begin immediate|SAVEPOINT savepoint member|RELEASE release member|ROLLBACK .*|COMMIT commit|SELECT select 1|SELECT select \* from "(signing_keys|receipt_log_keys)".*)$/;
    const stray = roots
      .filter((s) => s.kind !== SERVER && s.name !== 'webhook attempt')
      .map((s) => `${s.name} ${attr(s, 'db.query.text') ?? ''}`)
      .filter((text) => !expectedRoot.test(text));
    expect(stray).toEqual([]);
    expect(
      roots.filter((s) => s.kind === SERVER).every((s) => /^(GET|POST|PUT|PATCH|DELETE) \//.test(s.name)),
    ).toBe(true);
    const inTrace = spans.filter((s) => s.traceId === traceId);
    const byId = new Map(inTrace.map((s) => [s.spanId, s]));
    const descendsFromRequest = (s: OtlpSpan): boolean => {
      for (let p = s.parentSpanId; p !== undefined && p !== ''; p = byId.get(p)?.parentSpanId) {
        if (p === request!.spanId) return true;
      }
      return false;
    };
    const system = dialect === 'sqlite' ? 'sqlite' : 'postgresql';
    const sql = inTrace.filter((s) => attr(s, 'db.system.name') === system);
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.every(descendsFromRequest)).toBe(true);
    expect(sql.map((s) => s.name)).toContain('SELECT');
    // The settle: on SQLite one span for the writer thread's program, every statement named; on
    // PostgreSQL one statement.
    const settle = sql.find((s) => /insert into receipts/.test(attr(s, 'db.query.text') ?? ''));
    expect(attr(settle!, 'db.query.text')).toMatch(/update credentials .*insert into outbox_events/s);
    if (dialect === 'sqlite') expect(settle!.name).toBe('BATCH');
    expect(sql.every((s) => s.kind === CLIENT)).toBe(true);

    const header = hooks.received[0]!.headers['traceparent'];
    expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const [, hookTrace, hookSpan] = String(header).split('-');
    const outbound = spans.find((s) => s.spanId === hookSpan);
    expect(outbound, 'the outbound webhook POST span').toBeDefined();
    expect(outbound!.traceId).toBe(hookTrace);
    expect(outbound!.kind).toBe(CLIENT);
    const attempt = spans.find((s) => s.spanId === outbound!.parentSpanId);
    expect(attempt?.name).toBe('webhook attempt');
    // The attempt continues the trace of the verify that recorded the receipt.created event.
    expect(hookTrace).toBe(traceId);
    expect(attempt!.traceId).toBe(traceId);
    expect(byId.has(attempt!.parentSpanId!)).toBe(true);
    expect(descendsFromRequest(attempt!)).toBe(true);
  }, 60_000);

  it('traces the job polls too with PRESENCE_TRACE_JOBS=true', async () => {
    const jobs = await startWebhookReceiver();
    const traced = await group.start({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${jobs.port}`,
      PRESENCE_TRACE_JOBS: 'true',
    });
    await new Promise((r) => setTimeout(r, 1500));
    expect(await traced.stop()).toBe(0);
    const spans: OtlpSpan[] = jobs.received.flatMap((r) =>
      (
        JSON.parse(r.body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] }
      ).resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans)),
    );
    await jobs.close();
    const standalone = spans.filter((s) => (s.parentSpanId ?? '') === '' && s.kind === CLIENT);
    console.info(`standalone with jobs traced: ${standalone.length}`);
    // The polls of the outbox, deliveries, receipt log and retention jobs, each its own trace.
    const polls = standalone.filter(
      (s) =>
        !/^(BEGIN|SAVEPOINT|RELEASE|COMMIT|ROLLBACK)$/.test(s.name) &&
        !/signing_keys|receipt_log_keys|^select 1$/.test(attr(s, 'db.query.text') ?? ''),
    );
    expect(polls.length).toBeGreaterThan(5);
  }, 60_000);
});
