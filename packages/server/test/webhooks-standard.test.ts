/**
 * Standard Webhooks: real deliveries (real outbox events, the real worker job, a real HTTP
 * receiver on 127.0.0.1) verified by the maintained `standardwebhooks` library as it is, with
 * the secret the tenant was shown, on both databases, also during a secret rotation.
 */
import { verifyWebhook } from '@presence/sdk/node';
import { Webhook } from 'standardwebhooks';
import { expect, it } from 'vitest';
import { describeEachDialect } from './support/each-dialect.js';
import {
  createEndpoint,
  deliverDue,
  receiverPool,
  sendTest,
  useWebhookService,
} from './support/webhook-helpers.js';
import type { ReceivedWebhook } from './support/webhook-receiver.js';

const headersOf = (got: ReceivedWebhook) => got.headers as Record<string, string>;
const standardOnly = (got: ReceivedWebhook) =>
  Object.fromEntries(Object.entries(got.headers).filter(([name]) => name.startsWith('webhook-')));

describeEachDialect('Standard Webhooks deliveries', (dialect) => {
  const receivers = receiverPool();
  const s = useWebhookService(dialect, (started) => receivers.closeWith(started));

  it('are accepted by the standardwebhooks library with the secret as shown', async () => {
    const r = await receivers.start();
    const { secret } = await createEndpoint(s, r.url, ['credential.registered']);
    const { credential } = await s.enroll('standard-user');
    await deliverDue(s);
    const [got] = r.received;
    const h = got!.headers;
    expect(h['webhook-id']).toBe(h['x-presence-delivery-id']);
    expect(h['webhook-timestamp']).toBe(h['x-presence-timestamp']);
    expect(String(h['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);

    const payload = new Webhook(secret).verify(got!.body, headersOf(got!));
    expect(payload).toEqual(JSON.parse(got!.body));
    expect(payload).toMatchObject({
      type: 'credential.registered',
      data: { credential: { credentialRef: credential.id, credentialId: credential.credentialId } },
    });
    expect(() => new Webhook(secret).verify(`${got!.body} `, headersOf(got!))).toThrow();

    const event = verifyWebhook({ secret, headers: standardOnly(got!), rawBody: got!.body });
    expect(event.scheme).toBe('standard-webhooks');
    if (event.type !== 'credential.registered') throw new Error(`unexpected ${event.type}`);
    expect(event.data.credential.credentialRef).toBe(credential.id);
  });

  it('carry one signature per active secret during a rotation; the old one stops after it', async () => {
    const r = await receivers.start();
    const { id, secret: old } = await createEndpoint(s, r.url);
    const rotated = await s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, {
      overlapSeconds: 60,
    });
    const fresh: string = rotated.json.secret;
    await sendTest(s, id);
    await deliverDue(s);
    const during = r.received[0]!;
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(new Webhook(secret).verify(during.body, headersOf(during))).toMatchObject({
        type: 'webhook.test',
      });
      expect(verifyWebhook({ secret, headers: standardOnly(during), rawBody: during.body }).type).toBe(
        'webhook.test',
      );
    }

    s.clock.advance(61);
    await sendTest(s, id);
    await deliverDue(s);
    const after = r.received[1]!;
    expect(new Webhook(fresh).verify(after.body, headersOf(after))).toMatchObject({ type: 'webhook.test' });
    expect(() => new Webhook(old).verify(after.body, headersOf(after))).toThrow(/signature/i);
  });
});
