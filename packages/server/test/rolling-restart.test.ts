/**
 * Rolling restart of two instances on PostgreSQL under a steady verify load, behind a balancer
 * that routes only to instances whose /readyz is 200. Each instance in turn gets SIGTERM (its
 * readiness turns 503, the balancer stops routing to it, in-flight requests and webhook attempts
 * finish within the drain time, it exits 0 with a last `stopped` line) and is started again.
 * Counts: zero failed requests, every receipt stored, one receipt.created event per receipt, and
 * every event delivered to the tenant's webhook receiver.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable } from '../src/storage/testing.js';
import { startReadyBalancer, type ReadyBalancer } from './support/ready-balancer.js';
import { type ServerProcess, serviceBuilt } from './support/server-process.js';
import { useServerProcesses } from './support/server-processes.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { startVerifyLoad } from './support/verify-load.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

const built = serviceBuilt('rolling restart test');
const pgUp = built && (await pgAvailable());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!pgUp)('rolling restart of two instances on PostgreSQL', () => {
  const group = useServerProcesses('postgres', {
    name: 'rolling',
    env: {
      PRESENCE_WEBHOOK_ALLOW_NETS: '127.0.0.0/8',
      PRESENCE_SHUTDOWN_DELAY_MS: '500',
      PRESENCE_SHUTDOWN_DRAIN_MS: '10000',
      LOG_LEVEL: 'info',
    },
    processes: 2,
  });
  let balancer: ReadyBalancer;
  let receiver: WebhookReceiver;
  let instances: ServerProcess[] = [];

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${balancer.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${group.apiKey}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as any };
  };
  const untilReady = async (url: string) => {
    for (let i = 0; i < 50; i++) {
      if ((await fetch(`${balancer.url}/readyz`)).ok && (await fetch(`${url}/readyz`)).ok) return;
      await sleep(100);
    }
  };

  beforeAll(async () => {
    // Slow answers keep webhook attempts in flight when SIGTERM arrives.
    receiver = await startWebhookReceiver(() => ({ status: 200, delayMs: 150 }));
    balancer = await startReadyBalancer();
    instances = [...group.servers];
    for (const i of instances) balancer.add(i.url);
    await untilReady(instances[0]!.url);
  }, 60_000);

  // The group stops the instances and drops the database after these close.
  afterAll(async () => {
    await balancer?.close();
    await receiver?.close();
  });

  it('restarts both instances with no failed request and nothing lost', async () => {
    const endpoint = await call('POST', '/v1/webhooks/endpoints', {
      url: receiver.url,
      events: ['receipt.created'],
    });
    expect(endpoint.status).toBe(201);
    const authenticator = new SoftAuthenticator('app.example', 'https://app.example');
    const options = await call('POST', '/v1/presence/credentials/options', { subject: 'alice' });
    const enrolled = await call('POST', '/v1/presence/credentials', {
      registrationId: options.json.registrationId,
      credential: authenticator.register({ challenge: options.json.publicKey.challenge }),
    });
    expect(enrolled.status).toBe(201);

    const load = startVerifyLoad(() => balancer.url, group.apiKey, authenticator, 'alice', 10);
    await sleep(1000);
    const restartStarted = Date.now();
    const stopped: { code: number | null; output: string }[] = [];
    for (let n = 0; n < instances.length; n++) {
      const old = instances[n]!;
      const code = await old.stop('SIGTERM');
      stopped.push({ code, output: old.output() });
      balancer.remove(old.url);
      const startedAt = Date.now();
      const fresh = await group.start();
      console.log(`instance ${n} restarted in ${Date.now() - startedAt} ms`);
      instances[n] = fresh;
      balancer.add(fresh.url);
      await untilReady(fresh.url);
      await sleep(500);
    }
    const restartMs = Date.now() - restartStarted;
    await sleep(500);
    await load.stop();

    const failed = load.outcomes.filter((o) => o.status < 200 || o.status >= 300);
    expect(failed, JSON.stringify(failed.slice(0, 3))).toEqual([]);
    for (const s of stopped) {
      expect(s.code).toBe(0);
      const lines = s.output.trim().split('\n');
      expect(lines.at(-1)).toContain('"msg":"stopped"');
      expect(s.output).toContain('draining: readiness is now 503');
    }
    const receipts = load.outcomes.filter((o) => o.decision === 'PRESENCE_VERIFIED').map((o) => o.receiptId!);
    expect(receipts.length).toBeGreaterThan(20);

    const client = new pg.Client({ connectionString: group.env['DATABASE_URL'] });
    await client.connect();
    try {
      const stored = await client.query('select id from receipts');
      expect(new Set(stored.rows.map((r) => r.id))).toEqual(new Set(receipts));
      const events = await client.query(`select id from outbox_events where type = 'receipt.created'`);
      expect(events.rows).toHaveLength(receipts.length);
      const eventIds = new Set(events.rows.map((r) => r.id));
      for (let i = 0; i < 200; i++) {
        if (new Set(receiver.received.map((r) => JSON.parse(r.body).id)).size >= eventIds.size) break;
        await sleep(100);
      }
      const delivered = new Set(receiver.received.map((r) => JSON.parse(r.body).id as string));
      expect(delivered).toEqual(eventIds);
    } finally {
      await client.end();
    }
    const verifies = load.outcomes.filter((o) => o.step === 'verify').length;
    console.log(
      `rolling restart: ${load.outcomes.length} requests (${verifies} verifies) during a ${restartMs} ms ` +
        `restart of 2 instances, ${failed.length} failed; ${receipts.length} receipts stored, ` +
        `${receipts.length} events delivered`,
    );
  }, 120_000);
});
