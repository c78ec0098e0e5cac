/**
 * The console's dangerous changes approved by 2 or 3 members (docs/console.md#approvers-of-dangerous-changes),
 * on both databases: the requester's passkey is the first approval, the others approve the exact
 * change (its before and after) on the hosted approval page, then a member applies it once, only
 * while the state still is the `before` they saw. Real storage, real passkey ceremonies.
 */
import { expect, it } from 'vitest';
import type { ConsoleSettings } from '../src/domain/console/console-settings.js';
import { createInvite } from '../src/domain/console/create-invite.js';
import type { ConsoleRole } from '../src/domain/console/ports.js';
import { ceremony } from './support/approvals.js';
import { ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { RP_ID, useTestService } from './support/test-service.js';

const RACERS = 5;

describeEachDialect('console changes approved by several members', (dialect) => {
  const s = useTestService(dialect);
  const settings = async (): Promise<ConsoleSettings> => s.composed.consoleSettings();

  /** A new tenant with signed-in members of the given roles (named by role and position). */
  async function team(roles: ConsoleRole[]) {
    const tenant = await s.newTenant();
    const clients: ConsoleClient[] = [];
    for (const [i, role] of roles.entries()) {
      const invite = await createInvite(s.composed.deps, await settings(), {
        tenantId: tenant.tenantId,
        role,
        createdBy: null,
      });
      const client = new ConsoleClient(s.composed.app, await settings());
      expect((await client.join(invite.inviteUrl, `${role} ${i + 1}`)).status).toBe(200);
      clients.push(client);
    }
    return { ...tenant, clients };
  }

  const policyChange = (name: string) => ({
    kind: 'policy.change',
    target: 'policy',
    params: { rpId: RP_ID, rpName: name, allowedOrigins: ['https://app.example'] },
  });
  const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
  const currentPolicy = async (tenantId: string) => (await s.composed.deps.store.policies.current(tenantId))!;
  const setQuorum = (owner: ConsoleClient, required: number) =>
    owner.approve({ kind: 'settings.approvers', target: 'approvers', params: { required } });

  /** Owner 1 sets quorum 2 (one approver so far), then asks for a policy change. */
  async function pendingPolicyChange(name: string, roles: ConsoleRole[] = ['owner', 'owner']) {
    const t = await team(roles);
    const quorum = await setQuorum(t.clients[0]!, 2);
    expect(quorum.status, quorum.body).toBe(200);
    const requested = await t.clients[0]!.approve(policyChange(name));
    expect(requested.status, requested.body).toBe(200);
    expect(requested.json.pending.required).toBe(2);
    return { ...t, requested, changeId: requested.json.pending.changeId as string };
  }

  it('waits for a second owner, who sees the before and after, then applies once and audits the approval', async () => {
    const t = await pendingPolicyChange('Needs two');
    const [first, second] = t.clients as [ConsoleClient, ConsoleClient];
    const before = await currentPolicy(t.tenantId);
    expect(before.rules.rpName).not.toBe('Needs two');

    // The requester cannot apply before the second approval.
    const early = await first.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(early.status).toBe(409);
    expect(early.json.detail).toContain('not approved yet (1 of 2');
    expect((await currentPolicy(t.tenantId)).version).toBe(before.version);

    // The approval page names the customer tenant and shows the change's before and after.
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    const state = await s.request('GET', `/approve/${token}/state`, undefined, '');
    expect(state.status).toBe(200);
    expect(state.json.tenantName).toBe('test (Presence console)');
    expect(state.json.action.before.rpName).toBe(before.rules.rpName);
    expect(state.json.action.after.rpName).toBe('Needs two');
    expect(state.json.approvedCount).toBe(1);
    const page = await s.composed.app.inject({ method: 'GET', url: `/approve/${token}` });
    expect(page.body).toContain('after.rpName');
    expect(page.body).toMatch(/rpName<\/bdi>\s*<strong class="flag">changed<\/strong>/);
    expect(page.body).toContain('Needs two');

    const decided = await ceremony(s, token, 'approve', second.authenticator);
    expect(decided.status, JSON.stringify(decided.json)).toBe(200);
    expect(decided.json.state.status).toBe('approved');

    const applied = await first.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(applied.status, applied.body).toBe(200);
    const after = await currentPolicy(t.tenantId);
    expect(after.rules.rpName).toBe('Needs two');
    const again = await second.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain('already applied');

    const events = await s.composed.deps.store.auditEvents.list(t.tenantId, {}, { limit: 50 });
    const change = events.find((e) => e.action === 'policy.changed' && e.detail['version'] === after.version);
    const approvalId = (await s.composed.deps.store.console.changes.get(t.tenantId, t.changeId))!.approvalId;
    expect(change?.approvalId).toBe(approvalId);
    expect(events.find((e) => e.action === 'console_change.requested')?.approvalId).toBe(approvalId);
    expect(events.find((e) => e.action === 'console_settings.changed')?.detail).toEqual({
      approversRequired: { from: 1, to: 2 },
    });
    // The approval set lists both owners' receipts for the exact change.
    const set = await s.composed.deps.store.approvals.sets.get(
      (await settings()).consoleTenantId,
      approvalId,
    );
    expect((JSON.parse(set!.canonicalJson) as { approvals: unknown[] }).approvals).toHaveLength(2);
  });

  it('applies an approved change once when several members apply it at the same time', async () => {
    const t = await pendingPolicyChange('Raced', ['owner', 'owner', 'admin']);
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    expect((await ceremony(s, token, 'approve', t.clients[2]!.authenticator)).status).toBe(200);
    const versionBefore = (await currentPolicy(t.tenantId)).version;
    const appliers = Array.from({ length: RACERS }, (_, i) => t.clients[i % 3]!);
    const results = await Promise.all(
      appliers.map((c) => c.post(`/console/api/changes/${t.changeId}/apply`, {})),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
    expect((await currentPolicy(t.tenantId)).version).toBe(versionBefore + 1);
  });

  it('refuses to apply when the state changed since it was approved, and changes nothing', async () => {
    const t = await pendingPolicyChange('Stale');
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    expect((await ceremony(s, token, 'approve', t.clients[1]!.authenticator)).status).toBe(200);
    const put = await s.request(
      'PUT',
      '/v1/policy',
      { rpId: RP_ID, rpName: 'Changed by the API', allowedOrigins: ['https://app.example'] },
      t.apiKey,
    );
    expect(put.status).toBe(200);
    const applied = await t.clients[0]!.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(applied.status).toBe(409);
    expect(applied.json.detail).toContain('changed since it was approved');
    expect((await currentPolicy(t.tenantId)).rules.rpName).toBe('Changed by the API');
    expect((await s.composed.deps.store.console.changes.get(t.tenantId, t.changeId))!.status).toBe('stale');
  });

  it('refuses to apply when an approver lost the right to make the change before it was applied', async () => {
    const t = await pendingPolicyChange('Approver demoted', ['owner', 'owner', 'admin']);
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    expect((await ceremony(s, token, 'approve', t.clients[2]!.authenticator)).status).toBe(200);
    const adminId = (await s.composed.deps.store.console.members.list(t.tenantId)).find(
      (m) => m.role === 'admin',
    )!.id;
    await s.composed.deps.store.console.members.setRole(t.tenantId, adminId, 'admin', 'auditor');
    const applied = await t.clients[0]!.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(applied.status).toBe(409);
    expect(applied.json.detail).toContain('only 1 of its 2 approvers');
    expect((await currentPolicy(t.tenantId)).rules.rpName).not.toBe('Approver demoted');
  });

  it('refuses an approver whose role may not make the change, and counts nobody twice', async () => {
    const t = await pendingPolicyChange('Only owners and admins', ['owner', 'owner', 'developer']);
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    const developer = await ceremony(s, token, 'approve', t.clients[2]!.authenticator);
    // The page's challenge allows only the passkeys of approvers who have not decided.
    expect(developer.status).toBe(200);
    expect(developer.json).toMatchObject({ decision: 'CREDENTIAL_NOT_ALLOWED', recorded: false });
    const requesterAgain = await ceremony(s, token, 'approve', t.clients[0]!.authenticator);
    expect(requesterAgain.json, JSON.stringify(requesterAgain.json)).toMatchObject({ recorded: false });
    const state = await s.request('GET', `/approve/${token}/state`, undefined, '');
    expect(state.json.status).toBe('pending');
    expect(state.json.approvers).toHaveLength(2);
  });

  it('signs the before and after with one approver too, and raising the approvers needs the current number', async () => {
    const t = await team(['owner', 'owner', 'owner']);
    const [first, second] = t.clients as [ConsoleClient, ConsoleClient];
    const options = await first.post('/console/api/approvals/options', {
      kind: 'settings.approvers',
      target: 'approvers',
      params: { required: 2 },
    });
    expect(options.status).toBe(200);
    expect(options.json.change).toMatchObject({
      tenantName: 'test',
      memberName: 'owner 1',
      before: { approversRequired: 1 },
      after: { approversRequired: 2 },
    });
    expect(options.json.required).toBe(1);
    expect((await setQuorum(first, 2)).status).toBe(200);
    // Now 2 → 3 is itself a change that waits for a second owner.
    const raised = await setQuorum(second, 3);
    expect(raised.status, raised.body).toBe(200);
    expect(raised.json.pending.required).toBe(2);
    expect(await s.composed.deps.store.console.quorum.get(t.tenantId)).toBe(2);
    const token = tokenOf(raised.json.pending.approvalUrl);
    expect((await ceremony(s, token, 'approve', first.authenticator)).status).toBe(200);
    const applied = await first.post(`/console/api/changes/${raised.json.pending.changeId}/apply`, {});
    expect(applied.status, applied.body).toBe(200);
    expect(await s.composed.deps.store.console.quorum.get(t.tenantId)).toBe(3);
  });

  it('refuses a change that too few members could approve, naming how many and who', async () => {
    const t = await team(['owner', 'developer']);
    const tooMany = await setQuorum(t.clients[0]!, 2);
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.detail).toContain('at most 1 approvers');
    // As if a second owner had left after the quorum was raised.
    await s.composed.deps.store.console.quorum.put(t.tenantId, 2, Date.now(), null);
    const refused = await t.clients[0]!.post('/console/api/approvals/options', policyChange('Alone'));
    expect(refused.status).toBe(409);
    expect(refused.json.detail).toContain('needs 2 approvers');
    expect(refused.json.detail).toContain('owner 1 (owner)');
    expect(await s.composed.deps.store.console.changes.list(t.tenantId, 10)).toEqual([]);
  });

  it('cancels a pending change (its approval too); a rejected approval ends its change', async () => {
    const t = await pendingPolicyChange('Withdrawn');
    const [first, second] = t.clients as [ConsoleClient, ConsoleClient];
    const cancelled = await first.post(`/console/api/changes/${t.changeId}/cancel`, {});
    expect(cancelled.status, cancelled.body).toBe(200);
    const token = tokenOf(t.requested.json.pending.approvalUrl);
    expect((await s.request('GET', `/approve/${token}/state`, undefined, '')).json.status).toBe('cancelled');
    expect((await first.post(`/console/api/changes/${t.changeId}/apply`, {})).status).toBe(409);
    const events = await s.composed.deps.store.auditEvents.list(t.tenantId, {}, { limit: 50 });
    expect(events.some((e) => e.action === 'console_change.cancelled')).toBe(true);

    const next = await first.approve(policyChange('Rejected'));
    const nextToken = tokenOf(next.json.pending.approvalUrl);
    expect((await ceremony(s, nextToken, 'reject', second.authenticator)).status).toBe(200);
    const apply = await second.post(`/console/api/changes/${next.json.pending.changeId}/apply`, {});
    expect(apply.status).toBe(409);
    expect(apply.json.detail).toContain('already rejected');
  });

  it('lists the change with its before and after, and applies it through the page form with the secret shown once', async () => {
    const t = await team(['owner', 'owner']);
    const [first, second] = t.clients as [ConsoleClient, ConsoleClient];
    expect((await setQuorum(first, 2)).status).toBe(200);
    const members = await first.get('/console/members');
    expect(members.body).toContain('2 approvers');
    const requested = await first.approve({
      kind: 'api-key.create',
      target: 'new',
      params: { name: 'deploy <b>bot</b>', scopes: ['policy:write'] },
    });
    expect(requested.status, requested.body).toBe(200);
    const id = requested.json.pending.changeId as string;
    const listed = await second.get('/console/changes');
    expect(listed.body).toContain('api-key.create on new');
    expect(listed.body).toContain('deploy &lt;b&gt;bot&lt;/b&gt;');
    expect(listed.body).toContain('<th scope="row">scopes[0]</th>');
    expect(listed.body).toMatch(/1 of\s+2\s+approvals\s+given/);
    expect(listed.body).not.toContain(`/console/changes/${id}/apply`);
    const token = tokenOf(requested.json.pending.approvalUrl);
    expect((await ceremony(s, token, 'approve', second.authenticator)).status).toBe(200);
    // The new key's secret is shown only to the member who asked for it.
    expect((await second.get('/console/changes')).body).not.toContain(`/console/changes/${id}/apply`);
    expect((await second.form(`/console/changes/${id}/apply`, [])).status).toBe(403);
    expect((await first.get('/console/changes')).body).toContain(`/console/changes/${id}/apply`);
    const applied = await first.form(`/console/changes/${id}/apply`, []);
    expect(applied.status, applied.body).toBe(200);
    expect(applied.body).toMatch(/<code id="secret-value" class="secret">presence_/);
    const again = await first.form(`/console/changes/${id}/apply`, []);
    expect(again.status).toBe(409);
    const keys = await s.composed.deps.store.auditEvents.list(
      t.tenantId,
      { action: 'api_key.created' },
      { limit: 5 },
    );
    expect(keys[0]?.actor.name).toBe('owner 1');
    expect(keys[0]?.approvalId).toBe(
      (await s.composed.deps.store.console.changes.get(t.tenantId, id))!.approvalId,
    );
  });

  /** Owner 1 asks (quorum 2) for `change` on a key holding policy:write; owner 2 approves it. */
  async function approvedKeyChange(kind: 'create' | 'rotate' | 'revoke') {
    const t = await team(['owner', 'owner', 'developer']);
    expect((await setQuorum(t.clients[0]!, 2)).status).toBe(200);
    const made = await s.request(
      'POST',
      '/v1/keys',
      { name: `wide ${kind}`, scopes: ['policy:write'] },
      t.apiKey,
    );
    const change =
      kind === 'create'
        ? { kind: 'api-key.create', target: 'new', params: { name: 'wide new', scopes: ['policy:write'] } }
        : {
            kind: `api-key.${kind}`,
            target: made.json.key.keyId as string,
            params: kind === 'rotate' ? { graceSeconds: 0 } : {},
          };
    const options = await t.clients[0]!.post('/console/api/approvals/options', change);
    expect(options.status, options.body).toBe(200);
    const requested = await t.clients[0]!.approve(change);
    expect(requested.status, requested.body).toBe(200);
    const token = tokenOf(requested.json.pending.approvalUrl);
    // The developer may not use policy:write, so it is no approver of such a key.
    const developer = await ceremony(s, token, 'approve', t.clients[2]!.authenticator);
    expect(developer.json).toMatchObject({ decision: 'CREDENTIAL_NOT_ALLOWED', recorded: false });
    expect((await ceremony(s, token, 'approve', t.clients[1]!.authenticator)).status).toBe(200);
    const keys = async () =>
      (await s.testStore.rows('api_keys')).filter(
        (k) => k.tenant_id === t.tenantId && String(k.name).startsWith('wide'),
      );
    const changeId = requested.json.pending.changeId as string;
    const status = async () =>
      (await s.composed.deps.store.console.changes.get(t.tenantId, changeId))!.status;
    return { ...t, approverNames: options.json.approverNames as string[], changeId, keys, status };
  }

  for (const kind of ['create', 'rotate'] as const) {
    it(`a developer neither approves nor applies a ${kind} of a policy:write key; only its requester receives the secret`, async () => {
      const t = await approvedKeyChange(kind);
      const [first, second, developer] = t.clients as [ConsoleClient, ConsoleClient, ConsoleClient];
      expect(t.approverNames).toEqual(['owner 1', 'owner 2']);
      const keysBefore = await t.keys();
      const byDeveloper = await developer.post(`/console/api/changes/${t.changeId}/apply`, {});
      expect(byDeveloper.status, byDeveloper.body).toBe(403);
      expect(byDeveloper.json.detail).toContain('policy:write');
      expect(byDeveloper.body).not.toContain('presence_');
      expect((await developer.form(`/console/changes/${t.changeId}/apply`, [])).status).toBe(403);
      expect((await developer.get('/console/changes')).body).not.toContain(
        `/console/changes/${t.changeId}/apply`,
      );
      const bySecond = await second.post(`/console/api/changes/${t.changeId}/apply`, {});
      expect(bySecond.status, bySecond.body).toBe(403);
      expect(bySecond.json.detail).toContain('only the member who asked');
      expect(await t.keys()).toEqual(keysBefore);
      expect(await t.status()).toBe('pending');
      const applied = await first.post(`/console/api/changes/${t.changeId}/apply`, {});
      expect(applied.status, applied.body).toBe(200);
      expect(applied.json.secret).toMatch(/^presence_/);
      expect(await t.keys()).toHaveLength(2);
    });
  }

  it('a developer applies no revocation of a policy:write key; an approver who may no longer hold it stops counting', async () => {
    const t = await approvedKeyChange('revoke');
    const [first, , developer] = t.clients as [ConsoleClient, ConsoleClient, ConsoleClient];
    const byDeveloper = await developer.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(byDeveloper.status, byDeveloper.body).toBe(403);
    expect((await t.keys())[0]?.revoked_at ?? null).toBeNull();
    expect(await t.status()).toBe('pending');
    // Owner 2 approved, then became a developer: a developer may change keys, not policy:write ones.
    const members = await s.composed.deps.store.console.members.list(t.tenantId);
    const owner2 = members.find((m) => m.displayName === 'owner 2')!;
    await s.composed.deps.store.console.members.setRole(t.tenantId, owner2.id, 'owner', 'developer');
    const applied = await first.post(`/console/api/changes/${t.changeId}/apply`, {});
    expect(applied.status, applied.body).toBe(409);
    expect(applied.json.detail).toContain('only 1 of its 2 approvers');
    expect((await t.keys())[0]?.revoked_at ?? null).toBeNull();
  });

  it('answers malformed requests on the change routes with 4xx problems and changes nothing', async () => {
    const t = await pendingPolicyChange('Fuzzed');
    const [first] = t.clients as [ConsoleClient];
    const outsider = (await team(['owner'])).clients[0]!;
    const cases: [ConsoleClient, string, unknown, Record<string, string>?][] = [
      [first, '/console/api/changes/nope/apply', {}],
      [first, '/console/api/changes/chg_00000000000000000000000000/apply', {}],
      [first, `/console/api/changes/${t.changeId}/apply`, { extra: 1 }],
      [first, `/console/api/changes/${t.changeId}/apply`, [1, 2]],
      [first, `/console/api/changes/${t.changeId}/cancel`, {}, { 'x-csrf-token': 'forged' }],
      [first, `/console/api/changes/${t.changeId}/apply`, {}, { 'sec-fetch-site': 'cross-site' }],
      [outsider, `/console/api/changes/${t.changeId}/cancel`, {}],
      [outsider, `/console/api/changes/${t.changeId}/apply`, {}],
      [first, '/console/api/approvals/options', { ...policyChange('x'), kind: 'settings.approvers' }],
      [
        first,
        '/console/api/approvals/options',
        { kind: 'settings.approvers', target: 'approvers', params: { required: 4 } },
      ],
      [
        first,
        '/console/api/approvals/options',
        { kind: 'settings.approvers', target: 'other', params: { required: 1 } },
      ],
    ];
    for (const [client, url, body, headers] of cases) {
      const answer = await client.post(url, body, headers);
      expect(answer.status, `${url} ${JSON.stringify(body)}: ${answer.body}`).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.headers['content-type']).toContain('application/problem+json');
    }
    expect((await s.composed.deps.store.console.changes.get(t.tenantId, t.changeId))!.status).toBe('pending');
  });
});
