/**
 * Retention of approvals on both dialects (docs/operations.md#retention): past the window, approvals
 * that ended without passing and back no receipt go with their approver and ceremony rows, as do used
 * or expired enrollment links and lapsed uniqueActions claims. What is evidence stays: the approved
 * approval and its set, a rejected approval (its rejection is a receipt), an expired one an approver
 * had approved, a cancelled one whose late ceremony issued a receipt, every receipt; and uniqueActions decides afterwards exactly as before.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { expireApprovals } from '../src/domain/approvals/expire-approvals.js';
import { pruneExpiredRows } from '../src/domain/retention/prune-expired-rows.js';
import { DEFAULT_RETENTION_SETTINGS } from '../src/domain/retention/retention-settings.js';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService, type TestService } from './support/test-service.js';

const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };
const DAY = 24 * 3600;
const action = (n: number) => ({ op: 'retention', n });

async function pruneAll(s: TestService): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  for (let pass = 0; pass < 1000; pass++) {
    const { deleted, more } = await pruneExpiredRows(s.composed.deps, {
      ...DEFAULT_RETENTION_SETTINGS,
      batchSize: 1,
    });
    for (const [t, n] of Object.entries(deleted)) totals[t] = (totals[t] ?? 0) + n;
    if (!more) return totals;
  }
  throw new Error('pruning did not finish');
}

describeEachDialect('retention of approvals', (dialect) => {
  const s = useTestService(dialect, { env });

  const create = async (n: number, approvers: string[], required = 1) => {
    const res = await s.request('POST', '/v1/approvals', {
      action: action(n),
      approvers,
      required,
      expiresInSeconds: 600,
    });
    expect(res.status).toBe(201);
    return { id: res.json.approvalId as string, token: tokenOf(res.json.approvalUrl) };
  };
  const decide = async (token: string, intent: 'approve' | 'reject', who: SoftAuthenticator) =>
    expect((await ceremony(s, token, intent, who)).json).toMatchObject({ recorded: true });
  const link = async (expiresInSeconds: number) => {
    const res = await s.request('POST', '/v1/presence/enrollment-links', {
      subject: 'r-link',
      expiresInSeconds,
    });
    expect(res.status).toBe(201);
    return res.json.enrollmentUrl.slice(`${ORIGIN}/enroll/`.length) as string;
  };
  const ids = async (table: 'approvals' | 'enrollment_links') =>
    (await s.testStore.rows(table)).map((r) => r.id as string).sort();
  const approvalIds = async (table: 'approval_approvers' | 'approval_challenges' | 'approval_sets') =>
    [...new Set((await s.testStore.rows(table)).map((r) => r.approval_id as string))].sort();

  it('prunes approvals that ended without passing or any receipt, used links and lapsed claims; keeps evidence', async () => {
    const rules = (await s.request('GET', '/v1/policy')).json.rules;
    const put = await s.request('PUT', '/v1/policy', { ...rules, uniqueActions: true });
    expect(put.status).toBe(200);
    const alice = (await s.enroll('r-alice')).authenticator;
    const bob = (await s.enroll('r-bob')).authenticator;

    const approved = await create(1, ['r-alice', 'r-bob']);
    await decide(approved.token, 'approve', alice);
    const rejected = await create(2, ['r-alice']);
    await decide(rejected.token, 'reject', alice);
    const halfApproved = await create(3, ['r-alice', 'r-bob'], 2);
    await decide(halfApproved.token, 'approve', bob);
    const abandoned = await create(4, ['r-alice', 'r-bob']);
    const opened = await s.request('POST', `/approve/${abandoned.token}/options`, { intent: 'approve' }, '');
    expect(opened.status).toBe(200);
    const cancelled = await create(5, ['r-alice', 'r-bob']);
    expect((await s.request('POST', `/v1/approvals/${cancelled.id}/cancel`)).status).toBe(200);
    // A ceremony whose receipt was issued as the approval was cancelled (the verify path, then the
    // decision refused): the receipt names none of its approvers, only its ceremony row ties it.
    const cancelledMidCeremony = await create(8, ['r-alice']);
    const late = await s.request(
      'POST',
      `/approve/${cancelledMidCeremony.token}/options`,
      { intent: 'approve' },
      '',
    );
    expect((await s.request('POST', `/v1/approvals/${cancelledMidCeremony.id}/cancel`)).status).toBe(200);
    const lateVerify = await s.request('POST', '/v1/presence/verify', {
      challengeId: late.json.challengeId,
      assertion: alice.assert({ challenge: late.json.publicKey.challenge }),
    });
    expect(lateVerify.json.decision).toBe('PRESENCE_VERIFIED');
    const usedLink = await link(3600);
    const options = await s.request('POST', `/enroll/${usedLink}/options`, {}, '');
    const credential = new SoftAuthenticator(RP_ID, ORIGIN).register({
      challenge: options.json.publicKey.challenge,
    });
    expect((await s.request('POST', `/enroll/${usedLink}/finish`, { credential }, '')).status).toBe(201);
    await link(60);
    const ceremoniesBefore = await approvalIds('approval_challenges');
    expect(ceremoniesBefore).toContain(abandoned.id);

    s.clock.advance(DEFAULT_RETENTION_SETTINGS.approvalsDays * DAY + DAY);
    while (await expireApprovals(s.composed.deps));
    const recentlyCancelled = await create(6, ['r-alice']);
    expect((await s.request('POST', `/v1/approvals/${recentlyCancelled.id}/cancel`)).status).toBe(200);
    const live = await create(7, ['r-alice']);
    await link(3600);
    const linksBefore = await ids('enrollment_links');
    const receiptsBefore = await s.testStore.rows('receipts');

    const totals = await pruneAll(s);

    const kept = [
      approved.id,
      rejected.id,
      halfApproved.id,
      cancelledMidCeremony.id,
      recentlyCancelled.id,
      live.id,
    ];
    kept.sort();
    expect(await ids('approvals')).toEqual(kept);
    expect(await approvalIds('approval_approvers')).toEqual(kept);
    expect(await approvalIds('approval_sets')).toEqual([approved.id]);
    expect(await approvalIds('approval_challenges')).toEqual(
      ceremoniesBefore.filter((id) => id !== abandoned.id),
    );
    expect(totals).toMatchObject({ approvals: 2, approval_approvers: 4, approval_challenges: 1 });
    expect(await ids('enrollment_links')).toEqual([linksBefore.at(-1)]);
    expect(totals['enrollment_links']).toBe(2);
    const claims = await s.testStore.rows('unique_action_claims');
    expect(claims.map((c) => c.holder_id)).toEqual([live.id]);
    expect(await s.testStore.rows('receipts')).toEqual(receiptsBefore);

    const read = await s.request('GET', `/v1/approvals/${approved.id}`);
    expect(read.json).toMatchObject({
      status: 'approved',
      approvalSet: { approvalSetHashHex: expect.any(String) },
    });
    expect(
      (await s.request('GET', `/v1/approvals/${rejected.id}`)).json.approvers[0].receiptId,
    ).toBeDefined();
    expect((await s.request('GET', `/v1/approvals/${abandoned.id}`)).status).toBe(404);
    const unknown = await s.request('GET', `/approve/${'A'.repeat(43)}/state`, undefined, '');
    const pruned = await s.request('GET', `/approve/${abandoned.token}/state`, undefined, '');
    expect([pruned.status, pruned.json.code]).toEqual([unknown.status, unknown.json.code]);
    // uniqueActions decides as before: the approved action is refused, and the half-approved one's
    // receipt still counts as an approval ceremony's, not as a direct check of the action.
    const again = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: computeActionHash(action(1)),
    });
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain(approved.id);
    const retry = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: computeActionHash(action(3)),
    });
    expect(retry.status).toBe(201);
  });

  it('keeps every approval and link while the window is 0 (forever)', async () => {
    s.clock.advance(400 * DAY);
    const totals = await pruneExpiredRows(s.composed.deps, {
      ...DEFAULT_RETENTION_SETTINGS,
      approvalsDays: 0,
    });
    for (const table of [
      'approval_approvers',
      'approval_challenges',
      'approvals',
      'enrollment_links',
      'unique_action_claims',
    ])
      expect(totals.deleted[table]).toBe(0);
    expect((await ids('approvals')).length).toBeGreaterThan(0);
  });
});
