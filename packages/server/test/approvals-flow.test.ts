/**
 * Approvals over HTTP (docs/api-contract.md#13-approvals, docs/approvals.md): the API, the hosted page's JSON
 * endpoints with the software authenticator, quorum, refusals, expiry, cancel and webhooks' events.
 */
import { computeActionHashSync as computeActionHash, verifyReceipt } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import type { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, useTestService } from './support/test-service.js';
import { canonicalJson } from '@presence/sdk';
import { createHash, createPublicKey, verify } from 'node:crypto';

const action = { type: 'payout', amount: '250.00', currency: 'EUR', iban: 'DE89370400440532013000' };
const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };

describeEachDialect('approvals over HTTP', (dialect) => {
  const s = useTestService(dialect, { env });

  async function team(prefix: string, n: number) {
    const people: Record<string, SoftAuthenticator> = {};
    for (let i = 1; i <= n; i++) people[`${prefix}-${i}`] = (await s.enroll(`${prefix}-${i}`)).authenticator;
    return people;
  }

  it('2 of 3 with an initiator: the page shows the action, the initiator is refused, the set verifies', async () => {
    const people = await team('a', 3);
    const initiator = (await s.enroll('a-initiator')).authenticator;
    const created = await s.request('POST', '/v1/approvals', {
      action,
      approvers: ['a-1', 'a-2', 'a-3'],
      required: 2,
      initiator: 'a-initiator',
      title: 'Pay supplier',
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      status: 'pending',
      actionHashHex: computeActionHash(action),
      required: 2,
      initiator: 'a-initiator',
      approvers: [
        { subject: 'a-1', decision: null },
        { subject: 'a-2', decision: null },
        { subject: 'a-3', decision: null },
      ],
    });
    expect(created.json.bindingCode).toMatch(/^[ABCDEFGHJKMNPQRSTVWXYZ2-9]{6}$/);
    expect(created.json.approvalUrl).toMatch(new RegExp(`^${ORIGIN}/approve/[A-Za-z0-9_-]{43}$`));
    const token = tokenOf(created.json.approvalUrl);

    const state = await s.request('GET', `/approve/${token}/state`, undefined, '');
    expect(state.status).toBe(200);
    expect(state.headers['cache-control']).toBe('no-store');
    expect(state.json).toMatchObject({
      tenantName: 'test',
      title: 'Pay supplier',
      canonicalJson: canonicalJson(action),
      actionHashHex: computeActionHash(action),
      bindingCode: created.json.bindingCode,
      initiator: 'a-initiator',
      required: 2,
      approvedCount: 0,
      status: 'pending',
      setupProblem: null,
    });

    const options = await s.request('POST', `/approve/${token}/options`, { intent: 'approve' }, '');
    expect(options.json.publicKey.allowCredentials.map((c: { id: string }) => c.id).sort()).toEqual(
      Object.values(people)
        .map((p) => p.id)
        .sort(),
    );
    const byInitiator = await ceremony(s, token, 'approve', initiator);
    expect(byInitiator.json).toMatchObject({ decision: 'CREDENTIAL_NOT_ALLOWED', recorded: false });

    const first = await ceremony(s, token, 'approve', people['a-1']!);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ decision: 'PRESENCE_VERIFIED', recorded: true });
    expect(first.json.state).toMatchObject({ status: 'pending', approvedCount: 1 });
    const again = await ceremony(s, token, 'approve', people['a-1']!);
    expect(again.json).toMatchObject({ decision: 'CREDENTIAL_NOT_ALLOWED', recorded: false });

    const second = await ceremony(s, token, 'approve', people['a-3']!);
    expect(second.json).toMatchObject({ recorded: true, state: { status: 'approved', approvedCount: 2 } });

    const read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
    expect(read.json.status).toBe('approved');
    expect(read.json.approvers.map((a: { decision: string | null }) => a.decision)).toEqual([
      'approved',
      null,
      'approved',
    ]);
    const signed = read.json.approvalSet;
    expect(signed.approvalSet).toMatchObject({
      version: 'presence.approval-set.v1',
      approvalId: created.json.approvalId,
      tenantId: s.tenantId,
      actionHashHex: computeActionHash(action),
      action,
      title: 'Pay supplier',
      required: 2,
      approvers: ['a-1', 'a-2', 'a-3'],
      initiator: 'a-initiator',
    });
    expect(signed.approvalSet.approvals.map((a: { subject: string }) => a.subject)).toEqual(['a-1', 'a-3']);
    const bytes = Buffer.from(canonicalJson(signed.approvalSet), 'utf8');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(signed.approvalSetHashHex);
    const keys = (await s.request('GET', '/.well-known/presence/keys.json', undefined, '')).json.keys;
    const key = keys.find((k: { kid: string }) => k.kid === signed.signature.kid);
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: key.publicKeyB64Url ?? key.x },
      format: 'jwk',
    });
    expect(verify(null, bytes, publicKey, Buffer.from(signed.signature.signatureB64Url, 'base64url'))).toBe(
      true,
    );
    for (const entry of signed.approvalSet.approvals) {
      const receipt = await s.request('GET', `/v1/presence/receipts/${entry.receiptId}`);
      expect(receipt.json.receiptHashHex).toBe(entry.receiptHashHex);
      expect(receipt.json.receipt).toMatchObject({
        subject: entry.subject,
        actionHashHex: computeActionHash(action),
      });
      expect(verifyReceipt(receipt.json, { keys })).toMatchObject({ valid: true });
    }
    const late = await s.request('POST', `/approve/${token}/options`, { intent: 'reject' }, '');
    expect(late.status).toBe(410);
    expect(late.json.code).toBe('link_expired');
  });

  it('rejections that leave too few approvers reject, with a receipt for the rejection action', async () => {
    const people = await team('r', 3);
    const created = await s.request('POST', '/v1/approvals', {
      action,
      approvers: Object.keys(people),
      required: 2,
    });
    const token = tokenOf(created.json.approvalUrl);
    const one = await ceremony(s, token, 'reject', people['r-1']!);
    expect(one.json).toMatchObject({
      recorded: true,
      intent: 'reject',
      state: { status: 'pending', rejectedCount: 1 },
    });
    const receipt = await s.request('GET', `/v1/presence/receipts/${one.json.receiptId}`);
    const rejection = {
      type: 'presence.approval.rejection',
      approvalId: created.json.approvalId,
      actionHashHex: computeActionHash(action),
    };
    expect(receipt.json.receipt.actionHashHex).toBe(computeActionHash(rejection));
    const two = await ceremony(s, token, 'reject', people['r-2']!);
    expect(two.json.state.status).toBe('rejected');
    const read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`);
    expect(read.json.status).toBe('rejected');
    expect(read.json.approvalSet).toBeUndefined();
  });

  it('refuses bad requests with 400 naming the field and changes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ action, approvers: ['x', 'x'] }, '/approvers'],
      [{ action, approvers: ['x'], required: 2 }, '/required'],
      [{ action, approvers: ['x', 'y'], initiator: 'y' }, '/initiator'],
      [{ action: { blob: 'z'.repeat(17_000) }, approvers: ['x'] }, '/action'],
      [{ action: [1], approvers: ['x'] }, 'action'],
      [{ action: { a: JSON.parse('['.repeat(40) + ']'.repeat(40)) }, approvers: ['x'] }, '/action'],
      [{ action, approvers: [] }, 'approvers'],
      [{ action, approvers: ['x'], expiresInSeconds: 59 }, 'expiresInSeconds'],
      [{ action, approvers: ['x'], title: 't'.repeat(121) }, 'title'],
    ];
    for (const [body, field] of cases) {
      const res = await s.request('POST', '/v1/approvals', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(JSON.stringify(res.json.errors ?? res.json.detail)).toContain(field);
    }
    const deep = await s.composed.app.inject({
      method: 'POST',
      url: '/v1/approvals',
      headers: { authorization: `Bearer ${s.apiKey}`, 'content-type': 'application/json' },
      payload: `{"approvers":["x"],"action":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
    });
    expect(deep.statusCode).toBe(400);
    expect(deep.json().errors[0].field).toBe('/action');
    const list = await s.request('GET', '/v1/approvals?limit=1000');
    expect(
      list.json.data.every((a: { approvers: { subject: string }[] }) => a.approvers[0]?.subject !== 'x'),
    ).toBe(true);
  });

  it('cancel: 200 once, then 409; expiry: read as expired at once, settled by the job', async () => {
    await team('c', 1);
    const created = await s.request('POST', '/v1/approvals', { action, approvers: ['c-1'] });
    const cancelled = await s.request('POST', `/v1/approvals/${created.json.approvalId}/cancel`);
    expect(cancelled.json.status).toBe('cancelled');
    const again = await s.request('POST', `/v1/approvals/${created.json.approvalId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json.code).toBe('approval_not_pending');
    const audit = await s.testStore.store.auditEvents.list(s.tenantId, {}, { limit: 200 });
    const ofThis = audit.filter((a) => a.target.id === created.json.approvalId).map((a) => a.action);
    expect(ofThis.sort()).toEqual(['approval.cancelled', 'approval.created']);

    const expiring = await s.request('POST', '/v1/approvals', {
      action,
      approvers: ['c-1'],
      expiresInSeconds: 60,
    });
    s.clock.advance(61);
    const read = await s.request('GET', `/v1/approvals/${expiring.json.approvalId}`);
    expect(read.json.status).toBe('expired');
    const token = tokenOf(expiring.json.approvalUrl);
    expect((await s.request('POST', `/approve/${token}/options`, { intent: 'approve' }, '')).status).toBe(
      410,
    );
    const job = s.composed.jobs.find((j) => j.name === 'approval-expiry')!;
    while (await job.run());
    const stored = await s.testStore.store.approvals.approvals.get(s.tenantId, expiring.json.approvalId);
    expect(stored?.status).toBe('expired');
    s.clock.advance(-61);
  });

  it('long poll: returns as soon as a decision is recorded', async () => {
    const people = await team('w', 2);
    const created = await s.request('POST', '/v1/approvals', {
      action,
      approvers: Object.keys(people),
      required: 2,
    });
    const started = Date.now();
    const waiting = s.request('GET', `/v1/approvals/${created.json.approvalId}?waitSeconds=20`);
    await new Promise((r) => setTimeout(r, 200));
    await ceremony(s, tokenOf(created.json.approvalUrl), 'approve', people['w-1']!);
    const answered = await waiting;
    expect(Date.now() - started).toBeLessThan(5000);
    expect(answered.json.approvers[0].decision).toBe('approved');
  });

  it('tenants never see each other: the API says 404, scopes are enforced', async () => {
    await team('t', 1);
    const created = await s.request('POST', '/v1/approvals', { action, approvers: ['t-1'] });
    const other = await s.newTenant();
    const read = await s.request('GET', `/v1/approvals/${created.json.approvalId}`, undefined, other.apiKey);
    expect(read.status).toBe(404);
    const cancel = await s.request(
      'POST',
      `/v1/approvals/${created.json.approvalId}/cancel`,
      undefined,
      other.apiKey,
    );
    expect(cancel.status).toBe(404);
    const readOnly = await s.keyWith(['approvals:read']);
    const denied = await s.request('POST', '/v1/approvals', { action, approvers: ['t-1'] }, readOnly);
    expect(denied.status).toBe(403);
    const unknown = await s.request('GET', `/approve/${'A'.repeat(43)}/state`, undefined, '');
    expect(unknown.status).toBe(404);
  });
});
