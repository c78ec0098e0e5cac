/**
 * Retry behaviour against a real local HTTP server that fails on purpose: what is retried
 * (network errors, timeouts, 5xx), what is not (4xx), and that every attempt of one create
 * carries the same Idempotency-Key.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createPresenceClient } from './create-presence-client.js';
import { PresenceApiError, PresenceNetworkError } from './errors.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Script = (req: Seen, res: ServerResponse, attempt: number) => void;
let server: Server | undefined;

async function serve(script: Script) {
  const seen: Seen[] = [];
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      script(seen.at(-1)!, res, seen.length);
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/prefix/`;
  const client = createPresenceClient({
    baseUrl,
    apiKey: 'prs_test',
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 20,
  });
  return { seen, client, baseUrl };
}

function json(res: ServerResponse, status: number, body: unknown, type = 'application/json') {
  res.writeHead(status, { 'content-type': type, 'x-request-id': `req_${status}` });
  res.end(JSON.stringify(body));
}

const problem = (status: number, code: string) => ({
  type: `https://presence.example/problems/${code}`,
  title: code,
  status,
  code,
  detail: `${code} happened`,
  requestId: 'req_problem',
});

const challengeBody = { actionHashHex: 'a'.repeat(64), subject: 'user-1' };

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  server = undefined;
});

describe('HttpTransport retries', () => {
  it('retries 5xx and sends the same Idempotency-Key on every attempt of one create', async () => {
    const { seen, client } = await serve((_req, res, n) =>
      n < 3
        ? json(res, 503, problem(503, 'service_unavailable'), 'application/problem+json')
        : json(res, 201, { challengeId: 'chl_1' }),
    );
    const created = await client.presence.createChallenge(challengeBody);
    expect(created).toEqual({ challengeId: 'chl_1' });
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
    expect(seen.every((s) => s.url === '/prefix/v1/presence/challenge' && s.method === 'POST')).toBe(true);
    expect(seen.every((s) => s.headers.authorization === 'Bearer prs_test')).toBe(true);
    expect(JSON.parse(seen[0]!.body)).toEqual(challengeBody);
  });

  it('uses a fresh key per logical call, or the caller’s own key', async () => {
    const { seen, client } = await serve((_req, res) => json(res, 201, {}));
    await client.presence.createChallenge(challengeBody);
    await client.presence.createChallenge(challengeBody);
    await client.presence.createChallenge(challengeBody, { idempotencyKey: 'job-42/payout' });
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).not.toBe(keys[1]);
    expect(keys[2]).toBe('job-42/payout');
  });

  it('retries a dropped connection, then succeeds', async () => {
    const { seen, client } = await serve((_req, res, n) =>
      n === 1 ? res.socket?.destroy() : json(res, 200, { ok: true }),
    );
    await expect(client.presence.getChallenge('chl_x')).resolves.toEqual({ ok: true });
    expect(seen).toHaveLength(2);
    expect(seen[0]!.headers['idempotency-key']).toBeUndefined();
  });

  it('never retries a 4xx and surfaces the problem document', async () => {
    const { seen, client } = await serve((_req, res) => {
      const body = {
        ...problem(422, 'policy_violation'),
        errors: [{ field: '/subject', message: 'no active credentials' }],
      };
      json(res, 422, body, 'application/problem+json');
    });
    const error = await client.presence.createChallenge(challengeBody).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresenceApiError);
    expect(error).toMatchObject({
      status: 422,
      code: 'policy_violation',
      detail: 'policy_violation happened',
      requestId: 'req_problem',
      errors: [{ field: '/subject', message: 'no active credentials' }],
    });
    expect(seen).toHaveLength(1);
  });

  it('gives up after `retries` extra attempts with the last 5xx', async () => {
    const { seen, client } = await serve((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'req_proxy' });
      res.end('<html>bad gateway</html>');
    });
    const error = await client.keys.get('key_1').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: 'http_502', requestId: 'req_proxy' });
    expect((error as PresenceApiError).detail).toContain('bad gateway');
    expect(seen).toHaveLength(4);
  });

  it('times out each attempt and reports a PresenceNetworkError after the last one', async () => {
    const { seen, baseUrl } = await serve(() => undefined);
    const client = createPresenceClient({
      baseUrl,
      apiKey: 'k',
      timeoutMs: 50,
      retries: 1,
      retryBaseDelayMs: 1,
    });
    const error = await client.policy.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresenceNetworkError);
    expect(error).toMatchObject({ status: 0, code: 'timeout', attempts: 2 });
    expect(seen).toHaveLength(2);
  });

  it('stops at once when the caller aborts, even during a backoff wait', async () => {
    // Retry-After pins the wait at the 10 s cap: with full jitter alone, one run in two hundred
    // would draw a wait under the 50 ms below and retry before the abort.
    const { seen, baseUrl } = await serve((_req, res) => {
      res.setHeader('retry-after', '10');
      json(res, 500, problem(500, 'internal_error'));
    });
    const client = createPresenceClient({
      baseUrl,
      retries: 5,
      retryBaseDelayMs: 10_000,
      retryMaxDelayMs: 10_000,
    });
    const controller = new AbortController();
    const pending = client.keys.get('key_1', { signal: controller.signal });
    await new Promise((r) => setTimeout(r, 50));
    controller.abort(new Error('user cancelled'));
    await expect(pending).rejects.toThrow('user cancelled');
    expect(seen).toHaveLength(1);
  });

  it('encodes path parameters and drops undefined query values', async () => {
    const { seen, client } = await serve((_req, res) => json(res, 200, { data: [], nextCursor: null }));
    await client.credentials.get('a/b?c');
    await client.credentials.listPage({ subject: 'user 1', includeRevoked: true });
    expect(seen[0]!.url).toBe('/prefix/v1/presence/credentials/a%2Fb%3Fc');
    expect(seen[1]!.url).toBe('/prefix/v1/presence/credentials?subject=user+1&includeRevoked=true');
  });
});

describe('HttpTransport streams', () => {
  it('hands a 2xx body over unread, and reads an error body into the problem', async () => {
    const { client } = await serve((req, res) => {
      if (req.url?.includes('subject=denied'))
        return json(res, 403, problem(403, 'insufficient_scope'), 'application/problem+json');
      res.writeHead(200, { 'content-type': 'application/zip', 'x-request-id': 'req_zip' });
      res.end(Buffer.from('PK zip bytes'));
    });
    const range = { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' };
    const download = await client.receipts.export(range);
    expect(download).toMatchObject({ contentType: 'application/zip', requestId: 'req_zip' });
    expect(Buffer.from(await new Response(download.body).arrayBuffer()).toString()).toBe('PK zip bytes');
    const denied = await client.receipts.export({ ...range, subject: 'denied' }).catch((e: unknown) => e);
    expect(denied).toMatchObject({
      status: 403,
      code: 'insufficient_scope',
      detail: 'insufficient_scope happened',
    });
  });
});
