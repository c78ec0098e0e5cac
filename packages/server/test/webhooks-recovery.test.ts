/**
 * Webhook delivery when things go wrong, on both databases: slow receivers, endpoints that fail
 * for days, manual redelivery and recovery, a worker that dies mid-attempt (lease expiry),
 * endpoints deleted while deliveries are queued, and private targets without the allow list.
 */
import { expect, it } from 'vitest';
import { claimDeliveries } from '../src/domain/webhooks/claim-deliveries.js';
import { createWebhookTransport } from '../src/worker/webhook-transport.js';
import { describeEachDialect } from './support/each-dialect.js';
import {
  createEndpoint,
  deliverDue,
  deliveriesOf,
  sendTest,
  receiverPool,
  useWebhookService,
  webhookJob,
} from './support/webhook-helpers.js';

const DAY = 86_400;

describeEachDialect('webhook recovery', (dialect) => {
  const receivers = receiverPool();
  const receiver = receivers.start;
  const s = useWebhookService(dialect, (started) => receivers.closeWith(started));

  it('caps attempts in flight per endpoint, so a hanging receiver does not hold up the others', async () => {
    const slow = await receiver(() => 'hang');
    const fast = await receiver();
    const a = await createEndpoint(s, slow.url);
    const b = await createEndpoint(s, fast.url);
    for (let i = 0; i < 12; i++) await sendTest(s, a.id);
    for (let i = 0; i < 3; i++) await sendTest(s, b.id);
    await webhookJob(s).run();
    await fast.waitFor(3);
    await slow.waitFor(8);
    await new Promise((r) => setTimeout(r, 100));
    expect(slow.received).toHaveLength(8); // PRESENCE_WEBHOOK_ENDPOINT_CONCURRENCY default
    expect(fast.received).toHaveLength(3);
    await slow.close();
    await webhookJob(s).drain();
    const states = (await deliveriesOf(s, a.id)).map((d) => d.status);
    expect(states.filter((x) => x === 'pending')).toHaveLength(12);
  });

  it('disables an endpoint whose attempts have all failed for five days, with a visible reason', async () => {
    const r = await receiver(() => ({ status: 500 }));
    const { id } = await createEndpoint(s, r.url);
    await sendTest(s, id);
    await deliverDue(s);
    s.clock.advance(3 * DAY);
    await sendTest(s, id);
    await deliverDue(s);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json.endpoint.enabled).toBe(true);
    s.clock.advance(2 * DAY + 60);
    await sendTest(s, id);
    await deliverDue(s);
    const { endpoint } = (await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json;
    expect(endpoint.enabled).toBe(false);
    expect(endpoint.disabledReason).toMatch(/^every attempt failed since /);
    expect(endpoint.failingSince).not.toBeNull();
    expect((await deliveriesOf(s, id)).every((d) => d.status === 'failed')).toBe(true);
  });

  it('redelivers one delivery and recovers all failed since a time, counting usage once per delivery', async () => {
    let answer = 404;
    const r = await receiver(() => ({ status: answer }));
    const { id } = await createEndpoint(s, r.url);
    const since = new Date(s.clock.now()).toISOString();
    const ids = [await sendTest(s, id), await sendTest(s, id), await sendTest(s, id)];
    await deliverDue(s);
    expect((await deliveriesOf(s, id)).map((d) => d.status)).toEqual(['failed', 'failed', 'failed']);
    answer = 200;
    const one = await s.request('POST', `/v1/webhooks/deliveries/${ids[0]}/redeliver`, {});
    expect(one.status).toBe(202);
    expect(one.json.delivery).toMatchObject({ id: ids[0], status: 'pending' });
    await deliverDue(s);
    const recovered = await s.request('POST', `/v1/webhooks/endpoints/${id}/recover`, { since });
    expect(recovered.json).toEqual({ requeued: 2 });
    await deliverDue(s);
    const log = await deliveriesOf(s, id);
    expect(log.map((d) => d.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(log.every((d) => d.attempts.length === 2)).toBe(true);
    expect(r.received.filter((x) => x.headers['x-presence-delivery-id'] === ids[0])).toHaveLength(2);
    await s.request('POST', `/v1/webhooks/deliveries/${ids[0]}/redeliver`, {});
    await deliverDue(s);
    const single = await s.request('GET', `/v1/webhooks/deliveries/${ids[0]}`);
    expect(single.json.delivery.attempts).toHaveLength(3);
  });

  it('retries a delivery whose worker died mid-attempt once the lease expires (logged as interrupted)', async () => {
    const r = await receiver();
    const { id } = await createEndpoint(s, r.url);
    const deliveryId = await sendTest(s, id);
    const lost = await claimDeliveries(s.composed.deps, { limit: 10, perEndpoint: 8, leaseMs: 30_000 });
    expect(lost.claimed.map((c) => c.delivery.id)).toEqual([deliveryId]);
    await deliverDue(s);
    expect(r.received).toHaveLength(0);
    s.clock.advance(31);
    await deliverDue(s);
    expect(r.received.map((x) => x.headers['x-presence-delivery-id'])).toEqual([deliveryId]);
    const [log] = await deliveriesOf(s, id);
    expect(log.status).toBe('succeeded');
    expect(log.attempts.map((a: any) => a.error ?? a.statusCode)).toEqual([
      expect.stringMatching(/^interrupted/),
      200,
    ]);
  });

  it('deletes an endpoint with queued deliveries cleanly, and an in-flight attempt just lets go', async () => {
    const r = await receiver(() => 'hang');
    const { id } = await createEndpoint(s, r.url);
    const deliveryId = await sendTest(s, id);
    await sendTest(s, id);
    await webhookJob(s).run();
    await r.waitFor(2);
    expect((await s.request('DELETE', `/v1/webhooks/endpoints/${id}`)).status).toBe(204);
    await r.close();
    await webhookJob(s).drain();
    expect((await s.request('GET', `/v1/webhooks/endpoints/${id}`)).status).toBe(404);
    expect((await s.request('GET', `/v1/webhooks/deliveries/${deliveryId}`)).status).toBe(404);
    expect((await s.request('DELETE', `/v1/webhooks/endpoints/${id}`)).status).toBe(404);
    expect((await s.testStore.rows('webhook_attempts')).filter((a) => a.delivery_id === deliveryId)).toEqual(
      [],
    );
  });

  it('refuses private targets on every attempt when they are not allowed', async () => {
    const r = await receiver();
    const strict = createWebhookTransport({ allowNets: [], timeoutMs: 2000, connectTimeoutMs: 1000 });
    for (const url of [r.url, `http://localhost:${r.port}/`, `http://[::ffff:127.0.0.1]:${r.port}/`]) {
      const result = await strict.post(new URL(url), { 'content-type': 'application/json' }, '{}');
      expect(result).toMatchObject({
        statusCode: null,
        error: expect.stringMatching(/^refused: .*not allowed/),
      });
    }
    await strict.close();
    expect(r.received).toHaveLength(0);
  });
});
