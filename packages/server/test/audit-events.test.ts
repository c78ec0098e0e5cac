/**
 * GET /v1/audit-events (docs/api-contract.md#14-audit-events) through the API-key door and the operator door, the
 * `audit.event` outbox row written with each change, filters and paging, tenant isolation, and
 * console audit rows written before migration 0016, read back through the API. The console door
 * is in console.test.ts, the CLI door in audit-cli.test.ts.
 */
import { expect, it } from 'vitest';
import { ADMIN_TOKEN, rawExec, useBillingService } from './support/billing-service.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const POLICY = { rpId: 'app.example', allowedOrigins: ['https://app.example'] };

describeEachDialect('audit events through API keys', (dialect) => {
  const s = useTestService(dialect);

  it('records who changed what with which key, in the change’s transaction, with its audit.event', async () => {
    const deployer = await s.keyWith(['keys:manage', 'policy:write', 'receipts:read']);
    const reader = await s.keyWith(['audit:read']);
    const created = await s.request('POST', '/v1/keys', { name: 'ci', scopes: ['receipts:read'] }, deployer);
    expect(created.status).toBe(201);
    const keyId = created.json.key.keyId as string;
    expect((await s.request('DELETE', `/v1/keys/${keyId}`, undefined, deployer)).status).toBe(200);
    expect((await s.request('PUT', '/v1/policy', POLICY, deployer)).status).toBe(200);
    const refused = await s.request('PUT', '/v1/policy', { ...POLICY, bogus: 1 }, deployer);
    expect(refused.status).toBe(400);

    const page = await s.request('GET', '/v1/audit-events', undefined, reader);
    expect(page.status).toBe(200);
    const actions = page.json.data.map((e: { action: string }) => e.action);
    expect(actions.slice(0, 3)).toEqual(['policy.changed', 'api_key.revoked', 'api_key.created']);
    const [policy, revoked, createdEvent] = page.json.data;
    expect(createdEvent).toMatchObject({
      auditEventId: expect.stringMatching(/^aud_/),
      actor: { type: 'api_key', name: 'scoped', id: expect.stringMatching(/^key_/) },
      target: { type: 'api_key', id: keyId, name: 'ci' },
      requestId: expect.any(String),
    });
    expect(revoked.target).toEqual({ type: 'api_key', id: keyId, name: 'ci' });
    expect(policy.target.type).toBe('policy');
    const outbox = (await s.testStore.rows('outbox_events')).filter((r) => r['type'] === 'audit.event');
    const ids = outbox.map((r) => JSON.parse(String(r['payload'])).auditEventId);
    expect(ids).toEqual(expect.arrayContaining([policy.auditEventId, revoked.auditEventId]));
  });

  it('filters by actor type, action and time, pages with a cursor, and refuses an empty range', async () => {
    for (const name of ['a', 'b', 'c']) {
      expect((await s.request('POST', '/v1/keys', { name, scopes: ['receipts:read'] })).status).toBe(201);
    }
    const one = await s.request('GET', '/v1/audit-events?action=api_key.created&limit=2');
    expect(one.json.data).toHaveLength(2);
    expect(one.json.data.every((e: { action: string }) => e.action === 'api_key.created')).toBe(true);
    const two = await s.request(
      'GET',
      `/v1/audit-events?action=api_key.created&limit=2&cursor=${one.json.nextCursor}`,
    );
    expect(two.json.data[0].auditEventId < one.json.data[1].auditEventId).toBe(true);
    const wrongFilter = await s.request('GET', `/v1/audit-events?limit=2&cursor=${one.json.nextCursor}`);
    expect(wrongFilter.status).toBe(400);
    expect((await s.request('GET', '/v1/audit-events?actorType=operator')).json.data).toEqual([]);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect((await s.request('GET', `/v1/audit-events?from=${future}`)).json.data).toEqual([]);
    const empty = await s.request('GET', `/v1/audit-events?from=${future}&to=${future}`);
    expect(empty.status).toBe(400);
    expect(empty.json.detail).toContain('to');
    expect((await s.request('GET', '/v1/audit-events?actorType=robot')).status).toBe(400);
    expect((await s.request('GET', '/v1/audit-events?action=DROP%20TABLE')).status).toBe(400);
  });

  it('shows a tenant only its own events, and needs audit:read', async () => {
    const other = await s.newTenant();
    const theirs = await s.request('GET', '/v1/audit-events', undefined, other.apiKey);
    expect(theirs.status).toBe(200);
    expect(theirs.json.data.every((e: { action: string }) => e.action === 'tenant.created')).toBe(true);
    const noScope = await s.keyWith(['receipts:read']);
    expect((await s.request('GET', '/v1/audit-events', undefined, noScope)).status).toBe(403);
  });

  it('reads console audit rows written before migration 0016, in the new vocabulary', async () => {
    const { tenantId } = await s.newTenant();
    await rawExec(s.testStore, `DROP TABLE audit_events`);
    await rawExec(s.testStore, `DROP INDEX challenges_denied_idx`);
    await rawExec(s.testStore, `DROP TABLE console_passkey_names`);
    await rawExec(s.testStore, `DELETE FROM schema_migrations WHERE id = '0016-audit-events'`);
    await rawExec(
      s.testStore,
      `CREATE TABLE console_audit (id TEXT PRIMARY KEY, tenant_id TEXT NOT NULL, member_id TEXT,
        action TEXT NOT NULL, target TEXT, detail TEXT NOT NULL, receipt_id TEXT,
        receipt_hash_hex TEXT, created_at BIGINT NOT NULL)`,
    );
    await rawExec(
      s.testStore,
      `INSERT INTO console_members (id, tenant_id, display_name, role, created_at)
       VALUES ('mem_01J0000000000000000000000A', '${tenantId}', 'Dana', 'owner', 1700000000000)`,
    );
    await rawExec(
      s.testStore,
      `INSERT INTO console_audit VALUES
        ('aud_01J0000000000000000000000A', '${tenantId}', 'mem_01J0000000000000000000000A', 'api-key.revoke',
         'key_01J0000000000000000000000A', '{}', 'rct_01J0000000000000000000000A', '${'ab'.repeat(32)}', 1700000000000),
        ('aud_01J0000000000000000000000B', '${tenantId}', NULL, 'member.signed-out-everywhere', NULL, '{}',
         NULL, NULL, 1700000001000)`,
    );
    const { runMigrations } = await import('../src/storage/migrations/run-migrations.js');
    const { openDatabase } = await import('../src/storage/open-database.js');
    const handle = await openDatabase(s.testStore.options);
    try {
      expect((await runMigrations(handle)).applied).toEqual(['0016-audit-events']);
    } finally {
      await handle.db.destroy();
    }
    const events = await s.testStore.store.auditEvents.list(
      tenantId,
      { from: 1699999999999, to: 1700000002000 },
      { limit: 10 },
    );
    expect(events.map((e) => [e.action, e.actor, e.target])).toEqual([
      [
        'member.signed_out_everywhere',
        { type: 'operator', id: 'operator', name: 'operator' },
        { type: 'member', id: '' },
      ],
      [
        'api_key.revoked',
        { type: 'console_member', id: 'mem_01J0000000000000000000000A', name: 'Dana' },
        { type: 'api_key', id: 'key_01J0000000000000000000000A' },
      ],
    ]);
    expect(events[1]!.receiptId).toBe('rct_01J0000000000000000000000A');
  });
});

describeEachDialect('audit events through the operator API', (dialect) => {
  const s = useBillingService(dialect, { start: Date.UTC(2026, 10, 27, 10) });

  it('names the operator as the actor of tenant creation and plan changes', async () => {
    const created = await s.admin('POST', '/admin/v1/tenants', {
      name: 'Acme',
      rpId: 'acme.example',
      allowedOrigins: ['https://acme.example'],
      apiKey: true,
    });
    expect(created.status).toBe(201);
    const tenantId = created.json.tenantId as string;
    const plan = {
      name: 'team',
      currency: 'EUR',
      currencyExponent: 2,
      monthlyChallengeQuota: 100,
      meters: {},
    };
    expect((await s.admin('PUT', `/admin/v1/tenants/${tenantId}/plan`, { plan })).status).toBe(200);
    const denied = await s.admin('PUT', `/admin/v1/tenants/${tenantId}/plan`, { plan }, `x${ADMIN_TOKEN}`);
    expect(denied.status).toBe(401);
    const page = await s.request('GET', '/v1/audit-events', undefined, created.json.apiKey);
    // The manual clock stands still: ids of one millisecond are not ordered, so compare as a set.
    const operator = { type: 'operator', id: 'operator', name: 'operator API' };
    expect(page.json.data).toHaveLength(3);
    expect(page.json.data.map((e: { action: string; actor: unknown }) => [e.action, e.actor])).toEqual(
      expect.arrayContaining([
        ['plan.assigned', operator],
        ['invite.created', operator],
        ['tenant.created', operator],
      ]),
    );
  });
});
