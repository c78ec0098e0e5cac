/**
 * Adding a webhook endpoint in the console, on both databases: an endpoint receives the tenant's
 * events, so it is added only after the member's passkey approved exactly that endpoint, like
 * deleting one or rotating its secret; no plain form adds one.
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
});
