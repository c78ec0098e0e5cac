/**
 * Adding or editing a webhook endpoint in the console, on both databases: an endpoint receives the
 * tenant's events, so it is added, or pointed at another URL or other events, only after the
 * member's passkey approved exactly that change, like deleting one or rotating its secret; no plain
 * form adds one, and the plain edit form saves a description only.
 */
import { expect, it } from 'vitest';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { FLAG } from './support/soft-authenticator.js';
import { useTestService } from './support/test-service.js';

describeEachDialect('console webhook endpoints behind the passkey', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'] });
  const endpointCount = async () => (await s.testStore.rows('webhook_endpoints')).length;
  const member = async (role: ConsoleRole) => (await joinedMember(s, role)).client;
  const change = {
    kind: 'webhook.create',
    target: 'new',
    params: { url: 'http://127.0.0.1:9/all-events', events: ['receipt.created'] },
  };

  it('adds an endpoint only after the passkey approved it, and shows its secret once', async () => {
    const developer = await member('developer');
    const plain = await developer.form('/console/webhooks', [
      ['url', change.params.url],
      ['events', 'receipt.created'],
    ]);
    expect(plain.status).toBe(404);
    const denied = await developer.approve(change, FLAG.UP);
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toContain('USER_NOT_VERIFIED');
    expect(await endpointCount()).toBe(0);

    const approved = await developer.approve(change);
    expect(approved.status, approved.body).toBe(200);
    expect(approved.json.secret).toMatch(/^whsec_/);
    expect(approved.json.link.href).toMatch(/^\/console\/webhooks\/whe_/);
    const listed = (await s.request('GET', '/v1/webhooks/endpoints')).json.data;
    expect(listed).toMatchObject([{ url: change.params.url, events: change.params.events }]);
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 20 });
    expect(audit.find((a) => a.action === 'webhook_endpoint.created')).toMatchObject({
      receiptId: approved.json.receiptId,
      target: { id: listed[0].id },
    });
  });

  it('refuses an auditor and a private address before any passkey is asked', async () => {
    const auditor = await member('auditor');
    const before = await endpointCount();
    const refused = await auditor.post('/console/api/approvals/options', change);
    expect(refused.status).toBe(403);
    const owner = await member('owner');
    const internal = await owner.post('/console/api/approvals/options', {
      ...change,
      params: { ...change.params, url: 'http://10.0.0.1/x' },
    });
    expect(internal.status).toBe(400);
    expect(await endpointCount()).toBe(before);
  });

  it('points an endpoint elsewhere only after the passkey approved it; the plain form keeps URL and events', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/before',
      events: ['credential.registered'],
    });
    const id = created.json.endpoint.id as string;
    const stored = async () => (await s.request('GET', `/v1/webhooks/endpoints/${id}`)).json.endpoint;
    const developer = await member('developer');
    expect((await developer.get(`/console/webhooks/${id}`)).body).toContain('data-approve="webhook.update"');
    const moved = [
      [
        ['url', 'http://127.0.0.1:9/attacker'],
        ['events', 'credential.registered'],
      ],
      [
        ['url', 'http://127.0.0.1:9/before'],
        ['events', 'credential.registered'],
        ['events', 'audit.event'],
      ],
    ] as [string, string][][];
    for (const fields of moved) {
      const plain = await developer.form(`/console/webhooks/${id}/edit`, fields);
      expect(plain.status, plain.body).toBe(403);
      expect(plain.body).toContain('passkey');
    }
    const described = await developer.form(`/console/webhooks/${id}/edit`, [
      ['url', 'http://127.0.0.1:9/before'],
      ['description', 'Ops'],
      ['events', 'credential.registered'],
    ]);
    expect(described.status, described.body).toBe(303);
    const unmoved = { url: 'http://127.0.0.1:9/before', events: ['credential.registered'] };
    expect(await stored()).toMatchObject({ ...unmoved, description: 'Ops' });

    const update = {
      kind: 'webhook.update',
      target: id,
      params: {
        url: 'http://127.0.0.1:9/siem',
        events: ['audit.event', 'receipt.created'],
        description: 'SIEM',
      },
    };
    const denied = await developer.approve(update, FLAG.UP);
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toContain('USER_NOT_VERIFIED');
    const internal = await developer.post('/console/api/approvals/options', {
      ...update,
      params: { ...update.params, url: 'http://10.0.0.1/x' },
    });
    expect(internal.status).toBe(400);
    expect(await stored()).toMatchObject({ ...unmoved, description: 'Ops' });

    const options = await developer.post('/console/api/approvals/options', update);
    expect(options.json.change).toMatchObject({
      before: { ...unmoved, description: 'Ops' },
      after: update.params,
    });
    const approved = await developer.approve(update);
    expect(approved.status, approved.body).toBe(200);
    expect(await stored()).toMatchObject(update.params);
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 20 });
    expect(audit.find((a) => a.action === 'webhook_endpoint.updated' && a.receiptId)).toMatchObject({
      receiptId: approved.json.receiptId,
      target: { id, name: 'SIEM' },
    });
  });
});
