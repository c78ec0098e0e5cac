/**
 * createReceiptGuard of @presence/sdk/node in the frameworks executors use: a real Fastify app
 * (preHandler), a real Express 5 app and a real node:http server (`.express`), real HTTP requests,
 * the shared vectors' receipt and approval set, keys.json fetched over HTTP and cached, and the
 * Redis seen-store on the real Redis shared by two guards (two executor processes). While keys.json
 * cannot be fetched, the guard uses its cached copy within its lifetime, then refuses naming the
 * check, and tries again only after the retry interval.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createReceiptGuard,
  fetchedKeys,
  redisSeenStore,
  type EvidenceReport,
  type ServiceKey,
} from '@presence/sdk/node';
import express from 'express';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { redisAvailable, testRedisPrefix, testRedisUrl } from './support/redis.js';

const DIR = new URL('../../../conformance/cross-language/', import.meta.url);
const text = (name: string) => readFileSync(new URL(name, DIR), 'utf8');
const json = <T = unknown>(name: string) => JSON.parse(text(name)) as T;
const keys = json<{ keys: ServiceKey[] }>('keys.json');
const action = json<Record<string, unknown>>('action.json');
const header = (evidence: unknown) => Buffer.from(JSON.stringify(evidence)).toString('base64url');
const withoutEvidence = (body: unknown) =>
  Object.fromEntries(Object.entries((body ?? {}) as object).filter(([k]) => k !== 'presenceEvidence'));

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('createReceiptGuard in Fastify', () => {
  const app = Fastify();
  const guard = createReceiptGuard<{
    headers: Record<string, string | string[] | undefined>;
    body?: unknown;
  }>({
    keys,
    action: (request) => withoutEvidence(request.body),
  });
  app.post('/payouts', { preHandler: guard.fastify }, (request) => ({
    executed: (request as unknown as { presenceEvidence: EvidenceReport }).presenceEvidence.id,
  }));
  afterAll(() => app.close());
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/payouts', payload: body as object, headers });

  it('executes once with a valid receipt for this action, then refuses its reuse', async () => {
    const evidence = { 'presence-evidence': header(json('receipt.json')) };
    const first = await post(action, evidence);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().executed).toMatch(/^rct_/);
    const again = await post(action, evidence);
    expect(again.statusCode).toBe(403);
    expect(again.headers['content-type']).toContain('application/problem+json');
    expect(again.json()).toMatchObject({ status: 403, code: 'evidence_refused', check: 'singleUse' });
  });

  it('refuses a receipt for another action, and a request without evidence, naming the check', async () => {
    const other = await post(json('other-action.json'), {
      'presence-evidence': header(json('receipt.json')),
    });
    expect(other.json()).toMatchObject({ status: 403, check: 'action' });
    expect((await post(action)).json()).toMatchObject({ status: 403, check: 'evidence' });
    expect((await post(action, { 'presence-evidence': 'not base64 json' })).json()).toMatchObject({
      check: 'evidence',
    });
  });

  it('takes an approval set with its receipts from the body member', async () => {
    const ok = await post({ ...action, presenceEvidence: json('approval-set.json') });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().executed).toMatch(/^apr_/);
    const tampered = json<{ name: string; evidence: unknown }[]>('approval-sets.json').find(
      (v) => v.name === 'the initiator counted',
    )!;
    const refused = await post({ ...action, presenceEvidence: tampered.evidence });
    expect(refused.json()).toMatchObject({ status: 403, check: 'initiatorExcluded' });
  });
});

describe('createReceiptGuard in a real Express app', () => {
  const app = express();
  app.use(express.json());
  const guard = createReceiptGuard<express.Request>({ keys, action: (req) => withoutEvidence(req.body) });
  app.post('/payouts', guard.express, (req, res) => {
    res.json({
      executed: (req as express.Request & { presenceEvidence: EvidenceReport }).presenceEvidence.id,
    });
  });
  const server = createServer(app);
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('executes once with a valid receipt, then answers 403 problem+json naming singleUse', async () => {
    const url = `${await listen(server)}/payouts`;
    const send = () =>
      fetch(url, {
        method: 'POST',
        body: JSON.stringify(action),
        headers: { 'content-type': 'application/json', 'presence-evidence': header(json('receipt.json')) },
      });
    const first = await send();
    expect(first.status).toBe(200);
    expect(((await first.json()) as { executed: string }).executed).toMatch(/^rct_/);
    const again = await send();
    expect(again.status).toBe(403);
    expect(again.headers.get('content-type')).toContain('application/problem+json');
    expect(await again.json()).toMatchObject({ status: 403, code: 'evidence_refused', check: 'singleUse' });
  });
});

describe('createReceiptGuard as node:http (Express-style) middleware, keys fetched and cached', () => {
  let fetches = 0;
  let down = false;
  const keyServer = createServer((_req, res) => {
    fetches += 1;
    if (down) {
      res.statusCode = 503;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/json');
    res.end(text('keys.json'));
  });
  const servers: Server[] = [keyServer];
  let keyOrigin: Promise<string> | undefined;
  const keyServerOrigin = () => (keyOrigin ??= listen(keyServer));
  afterAll(() => Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve)))));

  it('answers 200 once, then 403, fetching keys.json once', async () => {
    const keysUrl = `${await keyServerOrigin()}/.well-known/presence/keys.json`;
    type Req = IncomingMessage & { body?: unknown };
    const guard = createReceiptGuard<Req>({
      keys: { url: keysUrl },
      action: (req) => withoutEvidence(req.body),
      maxAgeSeconds: 10 * 365 * 86_400,
    });
    const app = createServer((req: Req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
      req.on('end', () => {
        req.body = JSON.parse(raw);
        guard.express(req, res, (error) => {
          res.statusCode = error === undefined ? 200 : 500;
          res.end(error === undefined ? 'executed' : String(error));
        });
      });
    });
    servers.push(app);
    const url = await listen(app);
    const send = () =>
      fetch(url, {
        method: 'POST',
        body: JSON.stringify(action),
        headers: { 'presence-evidence': header(json('receipt.json')) },
      });
    const first = await send();
    expect([first.status, await first.text()]).toEqual([200, 'executed']);
    const second = await send();
    expect(second.status).toBe(403);
    expect(second.headers.get('content-type')).toContain('application/problem+json');
    expect(((await second.json()) as { check: string }).check).toBe('singleUse');
    expect(fetches).toBe(1);
  });

  it('re-fetches keys.json for an unknown key id only after the refetch interval', async () => {
    let now = 0;
    const source = fetchedKeys({ url: `${await keyServerOrigin()}/k`, refetchSeconds: 30, now: () => now });
    const before = fetches;
    await source.keys();
    await source.keys('ed25519-unknown');
    expect(fetches - before).toBe(1);
    now += 31_000;
    await source.keys('ed25519-unknown');
    expect(fetches - before).toBe(2);
  });

  it('while keys.json is unreachable: the cache within its lifetime, then a refusal; one try per retry interval', async () => {
    let now = 0;
    const source = fetchedKeys({
      url: `${await keyServerOrigin()}/k`,
      cacheSeconds: 60,
      refetchSeconds: 30,
      retrySeconds: 5,
      now: () => now,
    });
    const guard = createReceiptGuard({ keys: source, action: () => action });
    const request = () => ({ headers: { 'presence-evidence': header(json('receipt.json')) } });
    const before = fetches;
    await source.keys();
    down = true;
    try {
      now = 31_000; // an unknown key id is due for a re-fetch, which fails: the cached keys still serve
      expect(await source.keys('ed25519-unknown')).toEqual(keys.keys);
      expect(await source.keys('ed25519-unknown')).toEqual(keys.keys);
      expect(fetches - before).toBe(2);
      now = 61_000; // the cache has expired: no keys, the guard refuses naming the check
      expect(await guard.check(request())).toMatchObject({
        ok: false,
        problem: { status: 403, check: 'serviceSignature', detail: expect.stringMatching(/answered 503/) },
      });
      expect(await guard.check(request())).toMatchObject({
        ok: false,
        problem: { check: 'serviceSignature' },
      });
      expect(fetches - before).toBe(3);
      now = 65_999;
      await expect(source.keys()).rejects.toThrow(/no new fetch/);
      expect(fetches - before).toBe(3);
      down = false;
      now = 66_000;
      expect((await guard.check(request())).ok).toBe(true);
      expect(fetches - before).toBe(4);
    } finally {
      down = false;
    }
  });
});

const redisUp = await redisAvailable('receipt guard Redis seen-store tests');

describe.skipIf(!redisUp)('redisSeenStore on the real Redis', () => {
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1 });
  afterAll(() => redis.quit());

  it('lets exactly one of two executor processes accept the same receipt at once', async () => {
    const prefix = `${testRedisPrefix()}:seen:`;
    const make = () =>
      createReceiptGuard({ keys, action: () => action, seenStore: redisSeenStore(redis, { prefix }) });
    const request = { headers: { 'presence-evidence': header(json('receipt.json')) } };
    const outcomes = await Promise.all([make().check(request), make().check(request), make().check(request)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok).map((o) => (o.ok ? '' : o.problem.check))).toEqual([
      'singleUse',
      'singleUse',
    ]);
    const stored = await redis.keys(`${prefix}*`);
    expect(stored).toHaveLength(1);
    expect(await redis.pttl(stored[0]!)).toBeGreaterThan(29 * 86_400_000);
  });
});
