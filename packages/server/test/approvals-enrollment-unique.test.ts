/**
 * Enrollment links (single use, atomically) and the policy rule uniqueActions (docs/api-contract.md#13-approvals), over
 * HTTP on both databases, with the software authenticator.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService, type TestService } from './support/test-service.js';

const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };

async function enrollByLink(s: TestService, subject: string) {
  const link = await s.request('POST', '/v1/presence/enrollment-links', { subject, displayName: 'Alice' });
  expect(link.status).toBe(201);
  const token = link.json.enrollmentUrl.slice(`${ORIGIN}/enroll/`.length);
  return { link: link.json, token };
}

describeEachDialect('enrollment links and uniqueActions', (dialect) => {
  const s = useTestService(dialect, { env });

  it('an enrollment link enrolls one passkey for its subject, once; the passkey then approves', async () => {
    const { link, token } = await enrollByLink(s, 'link-alice');
    expect(link.enrollmentUrl).toMatch(new RegExp(`^${ORIGIN}/enroll/[A-Za-z0-9_-]{43}$`));
    const state = await s.request('GET', `/enroll/${token}/state`, undefined, '');
    expect(state.json).toMatchObject({
      subject: 'link-alice',
      displayName: 'Alice',
      used: false,
      rpId: RP_ID,
    });
    const options = await s.request('POST', `/enroll/${token}/options`, {}, '');
    expect(options.status).toBe(200);
    const authenticator = new SoftAuthenticator(RP_ID, ORIGIN);
    const credential = authenticator.register({ challenge: options.json.publicKey.challenge });
    const [a, b] = await Promise.all([
      s.request('POST', `/enroll/${token}/finish`, { credential }, ''),
      s.request('POST', `/enroll/${token}/finish`, { credential }, ''),
    ]);
    expect([a.status, b.status].sort()).toEqual([201, 410]);
    const created = a.status === 201 ? a : b;
    expect(created.json.credential).toMatchObject({ subject: 'link-alice', credentialId: authenticator.id });
    const again = await s.request('POST', `/enroll/${token}/options`, {}, '');
    expect(again.status).toBe(410);
    expect(again.json.code).toBe('link_expired');
    expect((await s.request('GET', `/enroll/${token}/state`, undefined, '')).json.used).toBe(true);
    const listed = await s.request('GET', '/v1/presence/credentials?subject=link-alice');
    expect(listed.json.data).toHaveLength(1);

    const approval = await s.request('POST', '/v1/approvals', {
      action: { op: 'link' },
      approvers: ['link-alice'],
    });
    const decided = await ceremony(s, tokenOf(approval.json.approvalUrl), 'approve', authenticator);
    expect(decided.json).toMatchObject({ recorded: true, state: { status: 'approved' } });
  });

  it('an expired enrollment link is refused; a scope without credentials:write cannot make one', async () => {
    const { token } = await enrollByLink(s, 'link-late');
    s.clock.advance(86_401);
    try {
      expect((await s.request('POST', `/enroll/${token}/options`, {}, '')).status).toBe(410);
    } finally {
      s.clock.advance(-86_401);
    }
    const readOnly = await s.keyWith(['credentials:read']);
    const denied = await s.request('POST', '/v1/presence/enrollment-links', { subject: 'x' }, readOnly);
    expect(denied.status).toBe(403);
  });

  it('uniqueActions: a verified action or an approved approval cannot be approved again (409 naming it)', async () => {
    const { tenantId, apiKey } = await s.newTenant();
    const as = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) =>
      s.request(method, url, body, apiKey);
    const policy = (await as('GET', '/v1/policy')).json.rules;
    const put = await as('PUT', '/v1/policy', {
      rpId: policy.rpId,
      allowedOrigins: policy.allowedOrigins,
      uniqueActions: true,
    });
    expect(put.status).toBe(200);
    expect(put.json.rules.uniqueActions).toBe(true);
    const bob = new SoftAuthenticator(RP_ID, ORIGIN);
    const opts = await as('POST', '/v1/presence/credentials/options', { subject: 'u-bob' });
    await as('POST', '/v1/presence/credentials', {
      registrationId: opts.json.registrationId,
      credential: bob.register({ challenge: opts.json.publicKey.challenge }),
    });

    const direct = { op: 'direct', n: 1 };
    const hash = computeActionHash(direct);
    const first = await as('POST', '/v1/presence/challenge', { actionHashHex: hash, subject: 'u-bob' });
    expect(first.status).toBe(201);
    const whilePending = await as('POST', '/v1/presence/challenge', { actionHashHex: hash });
    expect(whilePending.status).toBe(409);
    expect(whilePending.json.code).toBe('action_already_approved');
    expect(whilePending.json.detail).toContain(first.json.challengeId);
    const verified = await as('POST', '/v1/presence/verify', {
      challengeId: first.json.challengeId,
      assertion: bob.assert({ challenge: first.json.publicKey.challenge }),
    });
    expect(verified.json.decision).toBe('PRESENCE_VERIFIED');
    s.clock.advance(3600);
    try {
      const later = await as('POST', '/v1/approvals', { action: direct, approvers: ['u-bob'] });
      expect(later.status).toBe(409);
      expect(later.json.detail).toContain(verified.json.receiptId);
    } finally {
      s.clock.advance(-3600);
    }

    const viaApproval = { op: 'approval', n: 2 };
    const racing = await Promise.all(
      [1, 2, 3].map(() => as('POST', '/v1/approvals', { action: viaApproval, approvers: ['u-bob'] })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const winner = racing.find((r) => r.status === 201)!;
    const decided = await ceremony(s, tokenOf(winner.json.approvalUrl), 'approve', bob);
    expect(decided.json.state.status).toBe('approved');
    const again = await as('POST', '/v1/presence/challenge', {
      actionHashHex: computeActionHash(viaApproval),
    });
    expect(again.status).toBe(409);
    expect(again.json.detail).toContain(winner.json.approvalId);
    expect(tenantId).toMatch(/^ten_/);

    const cancelFrees = { op: 'cancel', n: 3 };
    const pending = await as('POST', '/v1/approvals', { action: cancelFrees, approvers: ['u-bob'] });
    await as('POST', `/v1/approvals/${pending.json.approvalId}/cancel`);
    const next = await as('POST', '/v1/approvals', { action: cancelFrees, approvers: ['u-bob'] });
    expect(next.status).toBe(201);
  });

  it('uniqueActions off (the default): the same action can be challenged and approved again', async () => {
    await s.enroll('off-1');
    const action = { op: 'twice' };
    const one = await s.request('POST', '/v1/approvals', { action, approvers: ['off-1'] });
    const two = await s.request('POST', '/v1/approvals', { action, approvers: ['off-1'] });
    expect([one.status, two.status]).toEqual([201, 201]);
    const policy = await s.request('GET', '/v1/policy');
    expect(policy.json.rules.uniqueActions).toBeUndefined();
  });
});
