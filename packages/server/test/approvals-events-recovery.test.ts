/**
 * Approvals' webhook events through the outbox to a real HTTP receiver (approval.approved,
 * .rejected, .cancelled, .expired, data as GET returns it), and the recovery of a decision whose
 * receipt was stored but whose decision was not (the process stopped in between). Both databases.
 */
import { verifyWebhook } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect, startedForSuite } from './support/each-dialect.js';
import { closeWebhookService, createEndpoint, deliverDue } from './support/webhook-helpers.js';
import { startWebhookReceiver } from './support/webhook-receiver.js';
import { ORIGIN, startTestService } from './support/test-service.js';

const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };
const EVENTS = ['approval.approved', 'approval.rejected', 'approval.expired', 'approval.cancelled'];

describeEachDialect('approval events and recovery', (dialect) => {
  const s = startedForSuite(
    () => startTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'], webhookTimeoutMs: 2000, env }),
    closeWebhookService,
  );
  const receiver = startedForSuite(
    () => startWebhookReceiver(),
    (r) => r.close(),
  );

  it('sends approval.approved|rejected|cancelled|expired with the approval as GET returns it', async () => {
    const endpoint = await createEndpoint(s, receiver.url, EVENTS);
    const alice = (await s.enroll('ev-alice')).authenticator;
    const make = async (action: object, extra: object = {}) =>
      (await s.request('POST', '/v1/approvals', { action, approvers: ['ev-alice'], ...extra })).json;
    const approved = await make({ n: 'approve' });
    await ceremony(s, tokenOf(approved.approvalUrl), 'approve', alice);
    const rejected = await make({ n: 'reject' });
    await ceremony(s, tokenOf(rejected.approvalUrl), 'reject', alice);
    const cancelled = await make({ n: 'cancel' });
    await s.request('POST', `/v1/approvals/${cancelled.approvalId}/cancel`);
    const expired = await make({ n: 'expire' }, { expiresInSeconds: 60 });
    s.clock.advance(61);
    try {
      const job = s.composed.jobs.find((j) => j.name === 'approval-expiry')!;
      while (await job.run());
      await deliverDue(s, 3);
      await receiver.waitFor(4);
    } finally {
      s.clock.advance(-61);
    }
    const byType = new Map<string, { data: { approvalId: string } }>();
    for (const got of receiver.received) {
      const event = verifyWebhook({
        secret: endpoint.secret,
        headers: got.headers as Record<string, string>,
        rawBody: got.body,
      });
      byType.set(event.type, event as never);
    }
    const expected: [string, string][] = [
      ['approval.approved', approved.approvalId],
      ['approval.rejected', rejected.approvalId],
      ['approval.cancelled', cancelled.approvalId],
      ['approval.expired', expired.approvalId],
    ];
    for (const [type, approvalId] of expected) {
      const data = byType.get(type)?.data;
      expect(data?.approvalId, type).toBe(approvalId);
      const read = await s.request('GET', `/v1/approvals/${approvalId}`);
      expect(data, type).toEqual(read.json);
    }
  });

  it('recovers a decision whose receipt was stored before the process stopped; a repeat changes nothing', async () => {
    const bob = (await s.enroll('rec-bob')).authenticator;
    const carol = (await s.enroll('rec-carol')).authenticator;
    const created = await s.request('POST', '/v1/approvals', {
      action: { n: 'recover' },
      approvers: ['rec-bob', 'rec-carol'],
      required: 2,
    });
    const token = tokenOf(created.json.approvalUrl);
    const options = await s.request('POST', `/approve/${token}/options`, { intent: 'approve' }, '');
    const assertion = bob.assert({ challenge: options.json.publicKey.challenge });
    // The receipt is stored by the verify path; the decision is not: what a crash in between leaves.
    const verified = await s.request('POST', '/v1/presence/verify', {
      challengeId: options.json.challengeId,
      assertion,
    });
    expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    let read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
    expect(read.json.approvers[0].decision).toBeNull();
    const retried = await s.request(
      'POST',
      `/approve/${token}/decide`,
      { challengeId: options.json.challengeId, assertion },
      '',
    );
    expect(retried.json).toMatchObject({
      decision: 'PRESENCE_VERIFIED',
      recorded: true,
      receiptId: verified.json.receiptId,
    });
    const repeat = await s.request(
      'POST',
      `/approve/${token}/decide`,
      { challengeId: options.json.challengeId, assertion },
      '',
    );
    expect(repeat.json).toMatchObject({ recorded: true, state: { approvedCount: 1 } });
    await ceremony(s, token, 'approve', carol);
    read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
    expect(read.json.status).toBe('approved');
    expect(read.json.approvers[0]).toMatchObject({
      decision: 'approved',
      receiptId: verified.json.receiptId,
    });
    const again = await s.request(
      'POST',
      `/approve/${token}/decide`,
      { challengeId: options.json.challengeId, assertion },
      '',
    );
    expect(again.json).toMatchObject({ recorded: true, state: { status: 'approved' } });
  });

  it('the recovery job records a decision nobody posted again, after a grace period, once', async () => {
    const dana = (await s.enroll('job-dana')).authenticator;
    await s.enroll('job-erin');
    const created = await s.request('POST', '/v1/approvals', {
      action: { n: 'job' },
      approvers: ['job-dana', 'job-erin'],
      required: 2,
    });
    const token = tokenOf(created.json.approvalUrl);
    const verifiedDirectly = async () => {
      const options = await s.request('POST', `/approve/${token}/options`, { intent: 'approve' }, '');
      const assertion = dana.assert({ challenge: options.json.publicKey.challenge });
      const res = await s.request('POST', '/v1/presence/verify', {
        challengeId: options.json.challengeId,
        assertion,
      });
      expect(res.json.decision).toBe('PRESENCE_VERIFIED');
      return res.json.receiptId as string;
    };
    const first = await verifiedDirectly();
    const second = await verifiedDirectly();
    const job = s.composed.jobs.find((j) => j.name === 'approval-recovery')!;
    await job.run();
    let read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
    expect(read.json.approvers[0].decision).toBeNull();
    s.clock.advance(31);
    try {
      expect(await job.run()).toBe(false);
      read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
      expect(read.json.approvers[0]).toMatchObject({ decision: 'approved', receiptId: first });
      expect(read.json.status).toBe('pending');
      const rows = await s.testStore.store.approvals.challenges.listUnrecorded(
        s.clock.now(),
        s.clock.now(),
        10,
      );
      expect(rows.filter((r) => r.approvalId === created.json.approvalId)).toEqual([]);
      expect(second).not.toBe(first);
    } finally {
      s.clock.advance(-31);
    }
  });
});
