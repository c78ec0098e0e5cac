/**
 * The console's webhook day-one controls, on both dialects with a real receiver: editing an
 * endpoint's URL, events and description (with the passkey; its audit event keeps the receipt), a
 * delivery's request and response bodies, and the `audit.event` webhook a SIEM follows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ConsoleClient } from './support/console-client.js';
import { joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { createEndpoint, deliverDue, sendTest, useWebhookService } from './support/webhook-helpers.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';

describeEachDialect('console webhook controls', (dialect) => {
  const s = useWebhookService(dialect);
  let r: WebhookReceiver;
  let owner: ConsoleClient;
  beforeAll(async () => {
    r = await startWebhookReceiver(() => ({ status: 200, body: '{"seen":true}' }));
    owner = (await joinedMember(s, 'owner', 'Webhook Owner')).client;
  });
  afterAll(async () => {
    await r.close();
  });

  it('edits URL, events and description with the passkey; the plain form, description only; bad input changes nothing', async () => {
    const endpoint = await createEndpoint(s, `${r.url}/before`);
    const page = await owner.get(`/console/webhooks/${endpoint.id}`);
    expect(page.body).toContain('Edit endpoint');
    const update = {
      kind: 'webhook.update',
      target: endpoint.id,
      params: { url: `${r.url}/after`, description: 'SIEM', events: ['audit.event', 'receipt.created'] },
    };
    const saved = await owner.approve(update);
    expect(saved.status, saved.body).toBe(200);
    const after = (await s.request('GET', `/v1/webhooks/endpoints/${endpoint.id}`)).json.endpoint;
    expect(after).toMatchObject(update.params);
    const kept = [
      ['url', `${r.url}/after`],
      ['events', 'receipt.created'],
      ['events', 'audit.event'],
    ];
    const described = await owner.form(`/console/webhooks/${endpoint.id}/edit`, [
      ...(kept as [string, string][]),
      ['description', 'SIEM feed'],
    ]);
    expect(described.status, described.body).toBe(303);
    const refused = await owner.form(`/console/webhooks/${endpoint.id}/edit`, [
      ['url', 'http://10.0.0.1/'],
      ['events', 'audit.event'],
    ]);
    expect(refused.status).toBe(403);
    const internal = await owner.post('/console/api/approvals/options', {
      ...update,
      params: { ...update.params, url: 'http://10.0.0.1/' },
    });
    expect(internal.status).toBe(400);
    const noEvents = await owner.form(`/console/webhooks/${endpoint.id}/edit`, [['url', `${r.url}/x`]]);
    expect(noEvents.status).toBe(400);
    expect((await s.request('GET', `/v1/webhooks/endpoints/${endpoint.id}`)).json.endpoint).toMatchObject({
      ...update.params,
      description: 'SIEM feed',
    });
    const events = (await s.request('GET', '/v1/audit-events?action=webhook_endpoint.updated')).json.data;
    expect(events.find((e: { receiptId?: string }) => e.receiptId === saved.json.receiptId)).toMatchObject({
      actor: { type: 'console_member', name: 'Webhook Owner' },
      target: { type: 'webhook_endpoint', id: endpoint.id, name: 'SIEM' },
    });
  });

  it('shows what a delivery sent and what the receiver answered, and carries audit.event to a SIEM', async () => {
    const endpoint = await createEndpoint(s, `${r.url}/siem`, ['audit.event']);
    const deliveryId = await sendTest(s, endpoint.id);
    await s.request('POST', '/v1/keys', { name: 'watched', scopes: ['receipts:read'] });
    await deliverDue(s, 4);
    const page = await owner.get(`/console/webhooks/${endpoint.id}`);
    expect(page.body).toContain(`Request and response<span class="sr-only"> of ${deliveryId}</span>`);
    expect(page.body).toContain('A test event sent from the Presence API.');
    expect(page.body).toContain('{&quot;seen&quot;:true}');
    const audit = r.received.filter((w) => w.headers['x-presence-event'] === 'audit.event');
    const bodies = audit.map((w) => JSON.parse(w.body));
    expect(bodies).toContainEqual(
      expect.objectContaining({
        type: 'audit.event',
        data: expect.objectContaining({
          action: 'api_key.created',
          target: expect.objectContaining({ name: 'watched' }),
        }),
      }),
    );
  });
});
