/**
 * The SDK's approval and enrollment-link methods against a real service over real HTTP, on both
 * databases: create, wait (long poll) while approvers decide on the hosted page, get, list, cancel.
 */
import {
  computeActionHash,
  createPresenceClient,
  PresenceApiError,
  type PresenceClient,
} from '@presence/sdk/node';
import { beforeAll, expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService } from './support/test-service.js';

const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };

describeEachDialect('@presence/sdk approvals', (dialect) => {
  const s = useTestService(dialect, { env });
  let client: PresenceClient;
  beforeAll(async () => {
    const baseUrl = await s.listen();
    client = createPresenceClient({ baseUrl, apiKey: s.apiKey, retryBaseDelayMs: 5 });
  });

  async function enrollByLink(subject: string) {
    const link = await client.enrollmentLinks.create({ subject });
    const token = link.enrollmentUrl.slice(`${ORIGIN}/enroll/`.length);
    const options = await s.request('POST', `/enroll/${token}/options`, {}, '');
    const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
    const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
    expect((await s.request('POST', `/enroll/${token}/finish`, { credential }, '')).status).toBe(201);
    return authenticator;
  }

  it('create, then wait returns once the quorum is reached, with the signed set', async () => {
    const alice = await enrollByLink('sdk-alice');
    const bob = await enrollByLink('sdk-bob');
    const action = { type: 'deploy', service: 'billing', version: '4.2.0' };
    const created = await client.approvals.create({
      action,
      approvers: ['sdk-alice', 'sdk-bob'],
      required: 2,
    });
    expect(created.actionHashHex).toBe(await computeActionHash(action));
    const waiting = client.approvals.wait(created.approvalId, { timeoutMs: 30_000, pollSeconds: 5 });
    const token = tokenOf(created.approvalUrl);
    await ceremony(s, token, 'approve', alice);
    await ceremony(s, token, 'approve', bob);
    const approval = await waiting;
    expect(approval.status).toBe('approved');
    expect(approval.approvalSet?.approvalSet.approvals).toHaveLength(2);
    expect((await client.approvals.get(created.approvalId)).approvalSet?.approvalSetHashHex).toBe(
      approval.approvalSet?.approvalSetHashHex,
    );
  });

  it('wait gives up at its own timeout and returns the pending approval; cancel, list, typed errors', async () => {
    await enrollByLink('sdk-carol');
    const created = await client.approvals.create({ action: { n: 1 }, approvers: ['sdk-carol'] });
    const started = Date.now();
    const pending = await client.approvals.wait(created.approvalId, { timeoutMs: 1500, pollSeconds: 1 });
    expect(pending.status).toBe('pending');
    expect(Date.now() - started).toBeLessThan(10_000);
    const cancelled = await client.approvals.cancel(created.approvalId);
    expect(cancelled.status).toBe('cancelled');
    const error = await client.approvals.cancel(created.approvalId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PresenceApiError);
    expect((error as PresenceApiError).code).toBe('approval_not_pending');
    const ids: string[] = [];
    for await (const a of client.approvals.list({ status: 'cancelled', limit: 1 })) ids.push(a.approvalId);
    expect(ids).toContain(created.approvalId);
  });
});
