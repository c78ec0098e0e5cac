/**
 * Keys outlive the members who made them, on both databases (issue 34): the console records who
 * created or rotated each key, its keys page flags working keys whose creator was removed or may no
 * longer use their scopes, and a member's removal or role change shows the approvers that member's
 * working keys in the before and after the passkey signs, then says how many still work. Nothing is
 * revoked for them.
 */
import { expect, it } from 'vitest';
import { ceremony } from './support/approvals.js';
import { joinedMember, type ConsoleClient } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { useTestService } from './support/test-service.js';

const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
const REVIEW = 'rotate it (the new secret goes to you) or revoke it';

describeEachDialect('console keys and the members who made them', (dialect) => {
  const s = useTestService(dialect);
  const creatorOf = async (keyId: string) =>
    (await s.testStore.rows('api_keys')).find((k) => k.id === keyId)?.created_by_member_id;
  /** The before and after an approver is shown (and signs) for a change. */
  const shown = async (client: ConsoleClient, change: { kind: string; target: string; params: object }) => {
    const options = await client.post('/console/api/approvals/options', change);
    expect(options.status, options.body).toBe(200);
    return options.json.change as { before: any; after: any };
  };

  it('records the creator, flags the key once Dana is demoted and removed, and revokes nothing', async () => {
    const owner = (await joinedMember(s, 'owner', 'Olivia')).client;
    const dana = await joinedMember(s, 'admin', 'Dana');
    const made = await dana.client.approve({
      kind: 'api-key.create',
      target: 'new',
      params: { name: 'deploy bot', scopes: ['policy:read', 'policy:write'] },
    });
    expect(made.status, made.body).toBe(200);
    const secret = made.json.secret as string;
    const listed = (await s.request('GET', '/v1/keys')).json.data as { keyId: string; name: string }[];
    const keyId = listed.find((k) => k.name === 'deploy bot')!.keyId;
    expect(await creatorOf(keyId)).toBe(dana.memberId);

    // A key made through the API has no creator; rotated in the console, its successor has Dana.
    const apiKey = (await s.request('POST', '/v1/keys', { name: 'ci reader', scopes: ['receipts:read'] }))
      .json;
    expect(await creatorOf(apiKey.key.keyId)).toBeNull();
    const rotated = await dana.client.approve({
      kind: 'api-key.rotate',
      target: apiKey.key.keyId,
      params: { graceSeconds: 0 },
    });
    expect(rotated.status, rotated.body).toBe(200);
    const successor = (await s.testStore.rows('api_keys')).find(
      (k) => k.name === 'ci reader' && k.id !== apiKey.key.keyId,
    );
    expect(successor?.created_by_member_id).toBe(dana.memberId);
    const plain = (await s.request('POST', '/v1/keys', { name: 'api made', scopes: ['receipts:read'] })).json;

    let page = (await owner.get('/console/keys')).body;
    expect(page).toMatch(/Dana <span class="muted">\(admin\)<\/span>/);
    expect(page).toMatch(/<th scope="row">api made<\/th>[\s\S]*?API or CLI/);
    expect(page).not.toContain('id="keys-to-review"');

    // Demoted to developer: the approvers see Dana's working keys; the result counts them.
    const demote = { kind: 'member.change-role', target: dana.memberId, params: { role: 'developer' } };
    const demotion = await shown(owner, demote);
    expect(demotion.before.keysTheyCreated.working).toBe(2);
    expect(demotion.before.keysTheyCreated.keys).toContainEqual({ keyId, name: 'deploy bot' });
    expect(demotion.after.keysTheyCreated.are).toContain('still working');
    const demoted = await owner.approve(demote);
    expect(demoted.status, demoted.body).toBe(200);
    expect(demoted.json.message).toContain(
      '2 API keys that Dana created still work (1 of them hold scopes the developer role may not use)',
    );
    expect(demoted.json.link).toEqual({
      href: '/console/keys',
      text: 'Review Dana’s keys on the API keys page',
    });
    page = (await owner.get('/console/keys')).body;
    expect(page).toContain('id="keys-to-review"');
    expect(page).toContain('created by Dana, now developer: holds policy:write');
    expect(page).toContain(REVIEW);

    // Removed: the removal's before and after list the key, and the key keeps working.
    const remove = { kind: 'member.remove', target: dana.memberId, params: {} };
    const removal = await shown(owner, remove);
    expect(removal.before.keysTheyCreated.keys).toContainEqual({ keyId, name: 'deploy bot' });
    expect(removal.after.keysTheyCreated.keys).toContainEqual({ keyId, name: 'deploy bot' });
    const removed = await owner.approve(remove);
    expect(removed.status, removed.body).toBe(200);
    expect(removed.json.message).toContain('2 API keys that Dana created still work: rotate or revoke them');
    expect(removed.json.link.href).toBe('/console/keys');
    page = (await owner.get('/console/keys')).body;
    expect(page).toMatch(/Dana <span class="muted">\(removed\)<\/span>/);
    expect(page).toContain('created by Dana, who was removed');
    expect(page).toContain('These 2 keys were');
    expect((await s.request('GET', '/v1/policy', undefined, secret)).status).toBe(200);

    // Revoked by the owner through the passkey gate: no longer flagged.
    const revoked = await owner.approve({ kind: 'api-key.revoke', target: keyId, params: {} });
    expect(revoked.status, revoked.body).toBe(200);
    page = (await owner.get('/console/keys')).body;
    expect(page).toContain('This key was');
    expect(page).not.toMatch(/deploy bot<\/strong>/);
    expect(plain.key.keyId).toMatch(/^key_/);
  });

  it('shows nothing extra for a member without keys, and reads keys stored before creators were kept', async () => {
    const owner = (await joinedMember(s, 'owner', 'Olivia')).client;
    const quiet = await joinedMember(s, 'developer', 'Quiet');
    const removal = await shown(owner, { kind: 'member.remove', target: quiet.memberId, params: {} });
    expect(removal.before).toEqual({ member: 'Quiet', role: 'developer', status: 'active' });
    const removed = await owner.approve({ kind: 'member.remove', target: quiet.memberId, params: {} });
    expect(removed.status, removed.body).toBe(200);
    expect(removed.json.link).toBeUndefined();

    // A row as an older build wrote it: no created_by_member_id column value at all.
    const old = (await s.testStore.rows('api_keys')).find((k) => k.tenant_id === s.tenantId)!;
    const row: Record<string, unknown> = { ...old };
    delete row['created_by_member_id'];
    await s.testStore.insert('api_keys', [
      { ...row, id: 'key_01K0000000000000000000000A', key_hash: 'ab'.repeat(32), name: 'from 0018' },
    ] as never[]);
    const stored = await s.composed.deps.store.apiKeys.get(s.tenantId, 'key_01K0000000000000000000000A');
    expect(stored?.createdByMemberId).toBeNull();
    expect((await owner.get('/console/keys')).body).toMatch(/from 0018<\/th>[\s\S]*?API or CLI/);
  });

  it('with two approvers, the approval page shows the keys, and applying the removal links to them', async () => {
    const { tenantId } = await s.newTenant();
    const first = (await joinedMember(s, 'owner', 'Olivia', tenantId)).client;
    const second = (await joinedMember(s, 'owner', 'Omar', tenantId)).client;
    const dana = await joinedMember(s, 'admin', 'Dana', tenantId);
    const made = await dana.client.approve({
      kind: 'api-key.create',
      target: 'new',
      params: { name: 'hooks bot', scopes: ['webhooks:manage'] },
    });
    expect(made.status, made.body).toBe(200);
    const quorum = { kind: 'settings.approvers', target: 'approvers', params: { required: 2 } };
    expect((await first.approve(quorum)).status).toBe(200);
    const requested = await first.approve({ kind: 'member.remove', target: dana.memberId, params: {} });
    expect(requested.status, requested.body).toBe(200);
    const token = tokenOf(requested.json.pending.approvalUrl);
    const state = await s.request('GET', `/approve/${token}/state`, undefined, '');
    expect(state.status, JSON.stringify(state.json)).toBe(200);
    expect(state.json.action.before.keysTheyCreated.keys).toEqual([
      { keyId: expect.stringMatching(/^key_/), name: 'hooks bot' },
    ]);
    expect((await ceremony(s, token, 'approve', second.authenticator)).status).toBe(200);

    await first.get('/console/changes');
    const changeId = requested.json.pending.changeId as string;
    const applied = await first.form(`/console/changes/${changeId}/apply`, []);
    expect(applied.status, applied.body).toBe(200);
    expect(applied.body).toContain('1 API key that Dana created still works');
    expect(applied.body).toContain('<a href="/console/keys">Review Dana’s keys on the API keys page</a>');
    expect((await first.get('/console/keys')).body).toContain('created by Dana, who was removed');
  });
});
