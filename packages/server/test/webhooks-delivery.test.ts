/**
 * Webhook delivery end to end on both databases: real outbox events, the real worker job and a
 * real HTTP receiver on 127.0.0.1. Signatures are recomputed here from the contract's formula.
 */
import { verifyWebhook } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import {
  createEndpoint,
  deliverDue,
  deliveriesOf,
  expectedSignature,
  sendTest,
  receiverPool,
  useWebhookService,
} from './support/webhook-helpers.js';

describeEachDialect('webhook delivery', (dialect) => {
  const receivers = receiverPool();
  const receiver = receivers.start;
  const s = useWebhookService(dialect, (started) => receivers.closeWith(started));

  it('delivers each subscribed event once per endpoint, signed exactly as the contract says', async () => {
    const r = await receiver();
    const { id, secret } = await createEndpoint(s, `${r.url}/hooks?x=1`);
    const other = await receiver();
    await createEndpoint(s, other.url, ['receipt.created']);
    const foreign = await s.newTenant();
    await createEndpoint(s, other.url, ['credential.registered'], foreign.apiKey);
    const { credential } = await s.enroll('hooked-user');
    await deliverDue(s);

    expect(r.received).toHaveLength(1);
    expect(other.received).toHaveLength(0);
    const [got] = r.received;
    const h = got!.headers;
    const deliveryId = String(h['x-presence-delivery-id']);
    const timestamp = String(h['x-presence-timestamp']);
    expect(deliveryId).toMatch(/^dlv_[0-9A-Z]{26}$/);
    expect(h['x-presence-event']).toBe('credential.registered');
    expect(h['content-type']).toBe('application/json');
    expect(Math.abs(Number(timestamp) - s.clock.now() / 1000)).toBeLessThan(5);
    expect(h['x-presence-signature']).toBe(
      `v1=${expectedSignature(secret, timestamp, deliveryId, got!.body)}`,
    );

    const event = (await s.testStore.rows('outbox_events')).find((e) => e.type === 'credential.registered');
    const body = JSON.parse(got!.body);
    expect(Object.keys(body)).toEqual(['id', 'type', 'createdAt', 'data']);
    expect(body).toMatchObject({
      id: event!.id,
      type: 'credential.registered',
      data: { credential: { id: credential.id } },
    });
    const verified = verifyWebhook({ secret, headers: h, rawBody: got!.body, now: s.clock.now() });
    expect(verified).toMatchObject({ id: event!.id, deliveryId });

    const [log] = await deliveriesOf(s, id);
    expect(log).toMatchObject({ id: deliveryId, eventId: event!.id, status: 'succeeded', attemptCount: 1 });
    expect(log.attempts).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 200, error: null, responseSnippet: 'ok' }),
    ]);
    const usage = (await s.testStore.rows('usage_events')).filter((u) => u.meter === 'webhooks.delivered');
    expect(usage.map((u) => u.source_id)).toEqual([deliveryId]);
  });

  it('retries 5xx with backoff and Retry-After, with the same delivery id and a fresh timestamp', async () => {
    const r = await receiver((_req, i) =>
      i === 0 ? { status: 503, headers: { 'retry-after': '30' }, body: 'busy' } : { status: 204 },
    );
    const { id, secret } = await createEndpoint(s, r.url);
    const deliveryId = await sendTest(s, id);
    await deliverDue(s);
    expect(r.received).toHaveLength(1);
    const [pending] = await deliveriesOf(s, id);
    expect(pending).toMatchObject({ status: 'pending', lastStatusCode: 503, lastError: 'HTTP 503' });
    expect(Date.parse(pending.nextAttemptAt) - s.clock.now()).toBeGreaterThanOrEqual(29_000);
    s.clock.advance(10);
    await deliverDue(s);
    expect(r.received).toHaveLength(1);
    s.clock.advance(25);
    await deliverDue(s);
    expect(r.received).toHaveLength(2);
    const [first, second] = r.received.map((x) => x.headers);
    expect(second!['x-presence-delivery-id']).toBe(deliveryId);
    expect(first!['x-presence-delivery-id']).toBe(deliveryId);
    expect(
      Number(second!['x-presence-timestamp']) - Number(first!['x-presence-timestamp']),
    ).toBeGreaterThanOrEqual(35);
    expect(second!['x-presence-event']).toBe('webhook.test');
    const ts = String(second!['x-presence-timestamp']);
    expect(second!['x-presence-signature']).toBe(
      `v1=${expectedSignature(secret, ts, deliveryId, r.received[1]!.body)}`,
    );
    const [done] = await deliveriesOf(s, id);
    expect(done.status).toBe('succeeded');
    expect(done.attempts.map((a: any) => [a.statusCode, a.responseSnippet])).toEqual([
      [503, 'busy'],
      [204, ''],
    ]);
  });

  it('retries after the receiver was down (connection refused), then delivers', async () => {
    const down = await receiver();
    const port = down.port;
    await down.close();
    const { id } = await createEndpoint(s, `http://127.0.0.1:${port}/`);
    const deliveryId = await sendTest(s, id);
    await deliverDue(s);
    const [failed] = await deliveriesOf(s, id);
    expect(failed).toMatchObject({ status: 'pending', lastStatusCode: null });
    expect(failed.attempts[0].error).toMatch(/ECONNREFUSED/);
    const up = await receiver(undefined, port);
    s.clock.advance(6);
    await deliverDue(s);
    expect(up.received.map((x) => x.headers['x-presence-delivery-id'])).toEqual([deliveryId]);
    expect((await deliveriesOf(s, id))[0].status).toBe('succeeded');
  });

  it('410 Gone disables the endpoint, visibly, and fails what was still queued', async () => {
    const r = await receiver(() => ({ status: 410 }));
    const { id } = await createEndpoint(s, r.url);
    await sendTest(s, id);
    await deliverDue(s);
    const endpoint = (await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json.endpoint;
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'the endpoint answered 410 Gone' });
    expect((await deliveriesOf(s, id))[0]).toMatchObject({ status: 'failed', lastStatusCode: 410 });
    expect((await s.request('POST', `/v1/webhooks/endpoints/${id}/test`, {})).status).toBe(409);
  });

  it('never follows a redirect: the 3xx is recorded as a failure and the target gets nothing', async () => {
    const target = await receiver();
    const r = await receiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }));
    const { id } = await createEndpoint(s, r.url);
    await sendTest(s, id);
    await deliverDue(s);
    expect(r.received).toHaveLength(1);
    expect(target.received).toHaveLength(0);
    const [log] = await deliveriesOf(s, id);
    expect(log).toMatchObject({ status: 'failed', lastStatusCode: 307 });
    expect(log.lastError).toMatch(/redirect .* not followed/);
  });

  it('signs with both secrets during a rotation overlap, then with the new one only', async () => {
    const r = await receiver();
    const { id, secret: old } = await createEndpoint(s, r.url);
    const rotated = await s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, {
      overlapSeconds: 60,
    });
    expect(rotated.status).toBe(200);
    const fresh: string = rotated.json.secret;
    expect(fresh).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(fresh).not.toBe(old);
    await sendTest(s, id);
    await deliverDue(s);
    const [during] = r.received;
    const sig = (secret: string) =>
      `v1=${expectedSignature(secret, String(during!.headers['x-presence-timestamp']), String(during!.headers['x-presence-delivery-id']), during!.body)}`;
    expect(during!.headers['x-presence-signature']).toBe(`${sig(fresh)} ${sig(old)}`);
    for (const secret of [old, fresh]) {
      expect(
        verifyWebhook({ secret, headers: during!.headers, rawBody: during!.body, now: s.clock.now() }).type,
      ).toBe('webhook.test');
    }
    s.clock.advance(61);
    await sendTest(s, id);
    await deliverDue(s);
    const after = r.received[1]!;
    expect(String(after.headers['x-presence-signature']).split(' ')).toHaveLength(1);
    expect(() =>
      verifyWebhook({ secret: old, headers: after.headers, rawBody: after.body, now: s.clock.now() }),
    ).toThrow(/no v1 signature/);
  });
});
