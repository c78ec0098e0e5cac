/**
 * A console change's record and its approval page on both dialects
 * (docs/console.md#approvers-of-dangerous-changes), with PRESENCE_PUBLIC_ORIGIN not the console's
 * origin: the approval link is stored sealed (members still see it), the page names members by name
 * and role and judges its passkey setup against the console origin, a change whose row cannot be
 * recorded leaves no approval waiting, and retention prunes the changes that ended unapplied while
 * applied and pending ones (and the approvers setting) stay; a master-key rotation re-seals the links.
 */
import { randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { depsFromStore } from '../src/compose.js';
import type { ConsoleChange } from '../src/domain/console/approve-change.js';
import { openChangeLink } from '../src/domain/console/change-link.js';
import { openChangeRequest } from '../src/domain/console/console-changes.js';
import { resealSecrets } from '../src/domain/master-key/reseal-secrets.js';
import { pruneExpiredRows } from '../src/domain/retention/prune-expired-rows.js';
import { DEFAULT_RETENTION_SETTINGS } from '../src/domain/retention/retention-settings.js';
import { ceremony } from './support/approvals.js';
import { joinedMember } from './support/console-client.js';
import { describeEachDialect } from './support/each-dialect.js';
import { ORIGIN, RP_ID, useTestService } from './support/test-service.js';

const DAY = 24 * 3600;

describeEachDialect('console change records', (dialect) => {
  const s = useTestService(dialect, { env: { PRESENCE_PUBLIC_ORIGIN: ORIGIN } });
  const tokenOf = (url: string) => new URL(url).pathname.split('/').at(-1)!;
  const policyChange = (name: string) => ({
    kind: 'policy.change',
    target: 'policy',
    params: { rpId: RP_ID, rpName: name, allowedOrigins: [ORIGIN] },
  });

  /** A tenant whose two owners ("Dana & Co" and Eli) must both approve its dangerous changes. */
  async function twoOwners() {
    const tenant = await s.newTenant();
    const dana = await joinedMember(s, 'owner', 'Dana & Co', tenant.tenantId);
    const eli = await joinedMember(s, 'owner', 'Eli', tenant.tenantId);
    const quorum = await dana.client.approve({
      kind: 'settings.approvers',
      target: 'approvers',
      params: { required: 2 },
    });
    expect(quorum.status, quorum.body).toBe(200);
    const request = async (name: string) => {
      const asked = await dana.client.approve(policyChange(name));
      expect(asked.status, asked.body).toBe(200);
      return { id: asked.json.pending.changeId as string, url: asked.json.pending.approvalUrl as string };
    };
    return { tenantId: tenant.tenantId, dana, eli, request };
  }

  it('stores the approval link sealed; members still see it, on the console origin', async () => {
    const t = await twoOwners();
    const change = await t.request('Sealed link');
    const settings = await s.composed.consoleSettings();
    expect(change.url.startsWith(`${settings.origin}/approve/`)).toBe(true);
    const token = tokenOf(change.url);
    const row = (await s.testStore.rows('console_changes')).find((r) => r.id === change.id)!;
    expect(String(row['approval_url_sealed'])).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(Object.keys(row)).not.toContain('approval_url');
    const listed = await t.eli.client.get('/console/changes');
    expect(listed.body).toContain(`<code id="link-${change.id}">${change.url}</code>`);
  });

  it('links the base stylesheet before the console stylesheet, which imports nothing', async () => {
    const t = await twoOwners();
    const page = (await t.dana.client.get('/console/changes')).body;
    const base = page.indexOf('<link rel="stylesheet" href="/assets/base.css" />');
    expect(base).toBeGreaterThan(-1);
    expect(base).toBeLessThan(page.indexOf('href="/console/assets/console.css"'));
    const css = await s.composed.app.inject({ method: 'GET', url: '/console/assets/console.css' });
    expect(css.statusCode).toBe(200);
    expect(css.body).not.toContain('@import');
    expect((await s.composed.app.inject({ method: 'GET', url: '/assets/base.css' })).statusCode).toBe(200);
  });

  it("names the console's approvers and requester by name and role, judged against the console origin", async () => {
    const t = await twoOwners();
    const change = await t.request('Named people');
    const token = tokenOf(change.url);
    const state = await s.request('GET', `/approve/${token}/state`, undefined, '');
    expect(state.json.setupProblem).toBeNull();
    const page = (await s.composed.app.inject({ method: 'GET', url: `/approve/${token}` })).body;
    expect(page).not.toContain('This page cannot ask for passkeys yet');
    expect(page).toMatch(
      new RegExp(
        `Requested by <strong><bdi title="console:${t.dana.memberId}">Dana &amp; Co \\(owner\\)</bdi>`,
      ),
    );
    expect(page).toContain(`<bdi title="console:${t.eli.memberId}">Eli (owner)</bdi>: not decided yet`);
    expect(page).not.toMatch(/<bdi>console:/);
    expect((await ceremony(s, token, 'approve', t.eli.client.authenticator)).json).toMatchObject({
      recorded: true,
    });
    // Approvals of customer tenants are still judged against PRESENCE_PUBLIC_ORIGIN.
    const created = await s.request('POST', '/v1/approvals', { action: { op: 'x' }, approvers: ['a'] });
    expect(created.json.approvalUrl.startsWith(`${ORIGIN}/approve/`)).toBe(true);
    const other = await s.request(
      'GET',
      `/approve/${tokenOf(created.json.approvalUrl)}/state`,
      undefined,
      '',
    );
    expect(other.json.setupProblem).toBeNull();
  });

  it('cancels the approval when the change cannot be recorded, and records nothing', async () => {
    const t = await twoOwners();
    const settings = await s.composed.consoleSettings();
    const members = await s.composed.deps.store.console.members.list(t.tenantId);
    const dana = members.find((m) => m.id === t.dana.memberId)!;
    // No such tenant: the row's foreign key refuses the insert, after the approval was made.
    const change: ConsoleChange = {
      type: 'policy.change',
      tenantId: 'ten_00000000000000000000000000',
      tenantName: 'gone',
      memberId: dana.id,
      memberName: dana.displayName,
      target: 'policy',
      params: {},
      before: null,
      after: { rpName: 'Never recorded' },
    };
    const receipt = { receiptId: 'rct_00000000000000000000000000', receiptHashHex: '0'.repeat(64) };
    await expect(
      openChangeRequest(s.composed.deps, settings, change, dana, receipt, members, 2),
    ).rejects.toThrow();
    const approvals = (await s.testStore.rows('approvals')).filter(
      (a) => a.tenant_id === settings.consoleTenantId && String(a.action_json).includes('Never recorded'),
    );
    expect(approvals.map((a) => a.status)).toEqual(['cancelled']);
    expect(
      (await s.testStore.rows('console_changes')).filter((r) => r.tenant_id === change.tenantId),
    ).toEqual([]);
  });

  it('prunes changes that ended unapplied, or whose approval lapsed, after the approvals window; keeps applied and waiting ones', async () => {
    const t = await twoOwners();
    const applied = await t.request('Applied');
    expect((await ceremony(s, tokenOf(applied.url), 'approve', t.eli.client.authenticator)).status).toBe(200);
    expect((await t.dana.client.post(`/console/api/changes/${applied.id}/apply`, {})).status).toBe(200);
    const cancelled = await t.request('Cancelled');
    expect((await t.dana.client.post(`/console/api/changes/${cancelled.id}/cancel`, {})).status).toBe(200);
    const rejected = await t.request('Rejected');
    expect((await ceremony(s, tokenOf(rejected.url), 'reject', t.eli.client.authenticator)).status).toBe(200);
    expect((await t.dana.client.get('/console/changes')).status).toBe(200); // the change becomes rejected
    const pending = await t.request('Pending');
    const approved = await t.request('Approved, not applied');
    expect((await ceremony(s, tokenOf(approved.url), 'approve', t.eli.client.authenticator)).status).toBe(
      200,
    );
    const ours = async () =>
      Object.fromEntries(
        (await s.testStore.rows('console_changes'))
          .filter((r) => r.tenant_id === t.tenantId)
          .map((r) => [r.id as string, r.status as string]),
      );
    expect(await ours()).toEqual({
      [applied.id]: 'applied',
      [cancelled.id]: 'cancelled',
      [rejected.id]: 'rejected',
      [pending.id]: 'pending',
      [approved.id]: 'pending',
    });
    const approvalOf = async (id: string) =>
      (await s.composed.deps.store.console.changes.get(t.tenantId, id))!.approvalId;
    const cancelledApproval = await approvalOf(cancelled.id);

    const inWindow = await pruneExpiredRows(s.composed.deps, DEFAULT_RETENTION_SETTINGS);
    expect(inWindow.deleted['console_changes']).toBe(0);
    s.clock.advance(DEFAULT_RETENTION_SETTINGS.approvalsDays * DAY + 2 * DAY);
    let pruned = 0;
    for (let more = true; more;) {
      const batch = await pruneExpiredRows(s.composed.deps, { ...DEFAULT_RETENTION_SETTINGS, batchSize: 1 });
      pruned += batch.deleted['console_changes'] ?? 0;
      more = batch.more;
    }
    // The pending change's approval lapsed long before the cutoff: it can never be applied, so it
    // goes too; an approved change not applied yet may still be applied, so it waits.
    expect(await ours()).toEqual({ [applied.id]: 'applied', [approved.id]: 'pending' });
    expect(pruned).toBeGreaterThanOrEqual(3);
    expect(await s.composed.deps.store.console.quorum.get(t.tenantId)).toBe(2);
    // The cancelled change's approval holds the requester's receipt: the approval rules keep it.
    const approvals = (await s.testStore.rows('approvals')).map((a) => a.id);
    expect(approvals).toContain(cancelledApproval);
  });

  // Last: it moves the shared store's secrets to a new master key.
  it('re-seals the links under a new master key (presence master-key reseal)', async () => {
    const t = await twoOwners();
    const change = await t.request('Resealed');
    const store = s.testStore.store;
    const newKey = randomBytes(32);
    const during = await depsFromStore(store, newKey, s.clock, {}, undefined, s.masterKey);
    const counts = await resealSecrets(during);
    expect(counts.find((c) => c.kind === 'console-change-link')!.resealed).toBeGreaterThanOrEqual(1);
    const after = await depsFromStore(store, newKey, s.clock);
    const record = (await store.console.changes.get(t.tenantId, change.id))!;
    expect(openChangeLink(after, record)).toBe(change.url);
  });
});
