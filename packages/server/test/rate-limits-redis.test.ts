/**
 * Limits shared through the local Redis: two real server processes count against the same
 * windows (per key and per address), and a Redis outage (a TCP proxy this test cuts) degrades
 * to per-process windows with one log line and a metric each way, never a failed request.
 * In CI a missing Redis fails the suite; elsewhere it is skipped with the reason.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../src/observability/create-metrics.js';
import { createRateLimiters } from '../src/rate-limit/create-rate-limiters.js';
import { pgAvailable } from '../src/storage/testing.js';
import { sample } from './support/metrics-text.js';
import { testRedisPrefix, testRedisUrl, redisAvailable } from './support/redis.js';
import {
  createTenantWithCli,
  createTestDatabase,
  freePort,
  type ServerProcess,
  serviceBuilt,
  startServerProcess,
} from './support/server-process.js';
import { startTcpProxy } from './support/tcp-proxy.js';

const redisUp = await redisAvailable('shared rate-limit tests');
const built = redisUp && serviceBuilt('shared rate-limit tests');
const pgUp = built && (await pgAvailable());

describe.skipIf(!redisUp)('rate limits when Redis goes away and comes back', () => {
  it('falls back per process, logs once each way, and shares again', async () => {
    const target = new URL(testRedisUrl());
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const lines: { msg: string; level: number }[] = [];
    const logger = pino(
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as { msg: string; level: number });
          done();
        },
      }),
    );
    const prefix = testRedisPrefix();
    const metrics = createMetrics();
    const degraded = async () =>
      (await metrics.registry.getSingleMetric('presence_rate_limit_store_degraded')!.get()).values[0]?.value;
    const viaProxy = await createRateLimiters({
      redisUrl: `redis://127.0.0.1:${proxy.port}`,
      prefix,
      metrics,
      logger,
    });
    const direct = await createRateLimiters({
      redisUrl: testRedisUrl(),
      prefix,
      metrics: createMetrics(),
      logger: false,
    });
    await Promise.all([viaProxy.ready(2000), direct.ready(2000)]);
    const limiter = viaProxy.create('key', 100)!;
    const witness = direct.create('key', 100)!;
    try {
      expect((await limiter.consume('k1')).remaining).toBe(99);
      expect((await witness.peek('k1')).remaining).toBe(99); // counted in Redis

      await proxy.cut();
      for (let i = 0; i < 5; i++) expect((await limiter.consume('k1')).allowed).toBe(true);
      expect((await limiter.peek('k1')).remaining).toBe(95); // the per-process window
      expect((await witness.peek('k1')).remaining).toBe(99); // Redis saw none of them
      expect(await degraded()).toBe(1);
      expect(lines.filter((l) => l.msg.includes('Redis unavailable'))).toHaveLength(1);
      const errors = await metrics.registry.getSingleMetricAsString('presence_rate_limit_store_errors_total');
      expect(sample(errors, 'presence_rate_limit_store_errors_total')).toBeGreaterThanOrEqual(6);

      await proxy.restore();
      const deadline = Date.now() + 10_000;
      while ((await degraded()) === 1 && Date.now() < deadline) {
        await limiter.consume('k2');
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(await degraded()).toBe(0);
      expect(lines.filter((l) => l.msg.includes('Redis answers again'))).toHaveLength(1);
      await limiter.consume('k1');
      expect((await witness.peek('k1')).remaining).toBe(98);
      expect(lines.filter((l) => l.msg.includes('Redis unavailable'))).toHaveLength(1);
    } finally {
      await viaProxy.close();
      await direct.close();
      await proxy.close();
    }
  }, 30_000);
});

describe.skipIf(!built)(
  `two server processes sharing limits through Redis (${pgUp ? 'postgres' : 'sqlite'})`,
  () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'presence-rl-'));
    const env: Record<string, string> = {
      PRESENCE_DATA_DIR: dataDir,
      PRESENCE_MASTER_KEY: randomBytes(32).toString('base64url'),
      REDIS_URL: testRedisUrl(),
      PRESENCE_REDIS_PREFIX: testRedisPrefix(),
      PRESENCE_RATE_LIMIT_PER_MINUTE: '6',
      PRESENCE_RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '2',
    };
    let servers: ServerProcess[] = [];
    let metricsUrls: string[] = [];
    let dropDatabase = async () => {};
    let apiKey = '';

    beforeAll(async () => {
      if (pgUp) {
        const db = await createTestDatabase('presence_rl');
        env.DATABASE_URL = db.url;
        dropDatabase = db.drop;
      }
      apiKey = createTenantWithCli('rl', env).apiKey;
      const ports = [await freePort(), await freePort()];
      metricsUrls = ports.map((p) => `http://127.0.0.1:${p}/metrics`);
      servers = await Promise.all(
        ports.map((p) => startServerProcess({ ...env, PRESENCE_METRICS_LISTEN: `127.0.0.1:${p}` })),
      );
    }, 90_000);

    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    });

    const list = (server: ServerProcess, key = apiKey) =>
      fetch(`${server.url}/v1/presence/receipts?limit=1`, { headers: { authorization: `Bearer ${key}` } });

    it('counts one API key against one window across both processes', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      const seen: string[] = [];
      for (const server of [a, a, a, a, b, b, b, b]) {
        const res = await list(server);
        seen.push(`${res.status}:${res.headers.get('ratelimit-remaining')}`);
        await res.arrayBuffer();
      }
      expect(seen).toEqual(['200:5', '200:4', '200:3', '200:2', '200:1', '200:0', '429:0', '429:0']);
      const text = await (await fetch(metricsUrls[1]!)).text();
      expect(sample(text, 'presence_rate_limited_total{limit="key"}')).toBe(2);
      expect(sample(text, 'presence_rate_limit_store_degraded')).toBe(0);
    });

    it('counts failed authentication per address across both processes', async () => {
      const [a, b] = servers as [ServerProcess, ServerProcess];
      expect((await list(a, 'prs_guess_one')).status).toBe(401);
      expect((await list(b, 'prs_guess_two')).status).toBe(401);
      const res = await list(a, 'prs_guess_three');
      expect(res.status).toBe(429);
      expect(((await res.json()) as { code: string }).code).toBe('rate_limited');
    });

    it('serves metrics on the separate listener only, with the pool gauges on PostgreSQL', async () => {
      const text = await (await fetch(metricsUrls[0]!)).text();
      expect(text).toContain('presence_http_request_duration_seconds_bucket');
      expect(text).toContain('nodejs_eventloop_lag_seconds');
      if (pgUp) {
        expect(sample(text, 'presence_db_pool_max_connections')).toBe(10);
        expect(text).toMatch(/^presence_db_pool_connections\{state="idle"\} \d+$/m);
      }
      expect((await fetch(`${servers[0]!.url}/metrics`)).status).toBe(404);
    });
  },
);
