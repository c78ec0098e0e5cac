/**
 * Database outages, end to end on a real server process under a steady verify load:
 * - PostgreSQL reached through a TCP proxy the test cuts (open connections destroyed, new ones
 *   refused) and restores;
 * - SQLite with another connection holding the write lock past busy_timeout.
 * Every failed request is a 503 `service_unavailable` problem with Retry-After, never a 500 or a
 * dropped connection; /readyz is 503 while PostgreSQL is away; the background jobs log one line
 * when they start failing and one when they recover; everything recovers with no restart.
 * Prints requests during the outage and the recovery time for docs/operations.md.
 */
import { join } from 'node:path';
import SqliteDatabase from '../src/storage/sqlite-driver.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable, testDatabaseUrl } from '../src/storage/testing.js';
import { type ServerProcess, serviceBuilt } from './support/server-process.js';
import { useServerProcesses, type ServerProcesses } from './support/server-processes.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { startVerifyLoad, type Outcome } from './support/verify-load.js';

const built = serviceBuilt('database outage tests');
const pgUp = built && (await pgAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Instance {
  server: ServerProcess;
  apiKey: string;
  authenticator: SoftAuthenticator;
}

/** One more process of the group (at LOG_LEVEL info, `extra` added), with alice enrolled on it. */
async function startInstance(group: ServerProcesses, extra: Record<string, string> = {}): Promise<Instance> {
  const server = await group.start({ LOG_LEVEL: 'info', ...extra });
  const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${group.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json() as Promise<any>);
  const options = await post('/v1/presence/credentials/options', { subject: 'alice' });
  const enrolled = await post('/v1/presence/credentials', {
    registrationId: options.registrationId,
    credential: authenticator.register({ challenge: options.publicKey.challenge }),
  });
  expect(enrolled.credential).toBeDefined();
  return { server, apiKey: group.apiKey, authenticator };
}

/** Every failure must be a 503 service_unavailable problem with Retry-After. */
function expectOnlyServiceUnavailable(outcomes: Outcome[]): Outcome[] {
  const failures = outcomes.filter((o) => o.status < 200 || o.status >= 300);
  for (const f of failures) {
    expect(f, JSON.stringify(f)).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(Number(f.retryAfter)).toBeGreaterThan(0);
  }
  return failures;
}

const succeeded = (o: Outcome) => o.step === 'verify' && o.decision === 'PRESENCE_VERIFIED';

describe.skipIf(!pgUp)('PostgreSQL cut off behind a TCP proxy', () => {
  // The tenant is made on the database directly; the server reaches it only through the proxy.
  const group = useServerProcesses('postgres', {
    name: 'outage',
    env: { PRESENCE_PG_CONNECT_TIMEOUT_MS: '1000' },
  });
  let proxy: TcpProxy;
  let instance: Instance;

  beforeAll(async () => {
    const target = new URL(testDatabaseUrl());
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const proxied = new URL(group.env['DATABASE_URL']!);
    proxied.hostname = '127.0.0.1';
    proxied.port = String(proxy.port);
    instance = await startInstance(group, { DATABASE_URL: proxied.toString() });
  }, 60_000);

  afterAll(async () => {
    await instance?.server.stop();
    await proxy?.close();
  });

  it('answers 503 with Retry-After while the database is away and recovers by itself', async () => {
    const { server } = instance;
    const load = startVerifyLoad(() => server.url, instance.apiKey, instance.authenticator, 'alice');
    await sleep(1000);
    const cutAt = Date.now();
    await proxy.cut();
    const readiness: number[] = [];
    while (Date.now() - cutAt < 3000) {
      const r = await fetch(`${server.url}/readyz`).catch((e) => {
        throw new Error(server.output().slice(-3000), { cause: e });
      });
      readiness.push(r.status);
      await sleep(200);
    }
    const restoredAt = Date.now();
    await proxy.restore();
    let recoveredAt = 0;
    while (recoveredAt === 0 && Date.now() - restoredAt < 20_000) {
      await sleep(50);
      recoveredAt = load.outcomes.find((o) => o.at >= restoredAt && succeeded(o))?.at ?? 0;
    }
    await sleep(500);
    await load.stop();
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

    const failures = expectOnlyServiceUnavailable(load.outcomes);
    const during = load.outcomes.filter((o) => o.at >= cutAt && o.at < restoredAt);
    expect(failures.length).toBeGreaterThan(0);
    expect(readiness.slice(1).every((s) => s === 503)).toBe(true);
    expect(recoveredAt).toBeGreaterThan(0);
    expect(load.outcomes.filter((o) => o.at > recoveredAt).every((o) => o.status < 300)).toBe(true);
    // The jobs retry on their own back-off schedule (up to 30 s apart): wait for their recovery line.
    for (let i = 0; i < 300 && !server.output().includes('background job recovered'); i++) await sleep(100);
    const logs = server.output().split('\n');
    const failing = logs.filter((l) => l.includes('background job failing'));
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.length).toBeLessThanOrEqual(4); // at most once per job, not once per poll
    expect(logs.some((l) => l.includes('background job recovered'))).toBe(true);
    expect(logs.some((l) => l.includes('unhandled error'))).toBe(false);
    const recovered = logs.filter((l) => l.includes('background job recovered')).map((l) => JSON.parse(l));
    console.log(
      `postgres outage: background jobs recovered after ${recovered.map((r) => `${r.job} ${r.downMs} ms down, ${r.failures} failed runs`).join('; ')}`,
    );
    console.log(
      `postgres outage: ${restoredAt - cutAt} ms cut, ${during.length} requests during it ` +
        `(${during.filter((o) => o.status === 503).length} × 503, 0 × 5xx other), ` +
        `${load.outcomes.length} requests in all; first verified receipt ${recoveredAt - restoredAt} ms after restore`,
    );
  }, 60_000);
});

describe.skipIf(!built)('SQLite write lock held past busy_timeout', () => {
  const group = useServerProcesses('sqlite', {
    name: 'busy',
    env: { PRESENCE_SQLITE_BUSY_TIMEOUT_MS: '100' },
  });
  let instance: Instance;

  beforeAll(async () => {
    instance = await startInstance(group);
  }, 60_000);

  it('answers 503 with Retry-After while another connection holds the lock, then recovers', async () => {
    const load = startVerifyLoad(() => instance.server.url, instance.apiKey, instance.authenticator, 'alice');
    await sleep(500);
    const holder = new SqliteDatabase(join(group.env['PRESENCE_DATA_DIR']!, 'presence.sqlite'));
    holder.exec('BEGIN IMMEDIATE');
    const lockedAt = Date.now();
    await sleep(2000);
    holder.exec('COMMIT');
    holder.close();
    const releasedAt = Date.now();
    let recoveredAt = 0;
    while (recoveredAt === 0 && Date.now() - releasedAt < 10_000) {
      await sleep(50);
      recoveredAt = load.outcomes.find((o) => o.at >= releasedAt && succeeded(o))?.at ?? 0;
    }
    await load.stop();
    const failures = expectOnlyServiceUnavailable(load.outcomes);
    expect(failures.length).toBeGreaterThan(0);
    expect(recoveredAt).toBeGreaterThan(0);
    expect(instance.server.output()).not.toContain('unhandled error');
    const during = load.outcomes.filter((o) => o.at >= lockedAt && o.at < releasedAt);
    console.log(
      `sqlite lock: ${releasedAt - lockedAt} ms held, ${during.length} requests during it ` +
        `(${failures.length} × 503); first verified receipt ${recoveredAt - releasedAt} ms after release`,
    );
  }, 60_000);
});
