/**
 * "Only once" transitions of the API under concurrent requests, on both databases (issue 34 §2):
 * however many requests race, one rotation of a key succeeds and the others get a 409; a
 * revocation happens once and records one event; a registration ceremony enrolls one passkey;
 * webhook secret rotations never overwrite a secret
 * they did not read; one signing-key
 * rotation is scheduled; an approval is cancelled once, and a cancel or the expiry job racing its
 * last approving decision leaves one final status (with an approval set exactly when approved) and
 * never loses the approver's receipt. Each transition is a compare-and-set in the store, in the
 * transaction of its side effects (the successor key, the outbox event, the retired keys).
 */
import { expect, it } from 'vitest';
import { expireApprovals } from '../src/domain/approvals/expire-approvals.js';
import { rotateSigningKey } from '../src/domain/receipts/rotate-signing-key.js';
import { signingSecrets } from '../src/domain/webhooks/webhook-secret.js';
import { ceremony, tokenOf } from './support/approvals.js';
import { describeEachDialect } from './support/each-dialect.js';
import { SoftAuthenticator } from './support/soft-authenticator.js';
import { ORIGIN, RP_ID, useTestService } from './support/test-service.js';

const RACERS = 10;
/** Approvals whose last decision races a cancel or the expiry job, one after the other. */
const ROUNDS = 12;
const env = { PRESENCE_PUBLIC_ORIGIN: ORIGIN, PRESENCE_RATE_LIMIT_LINKS_PER_MINUTE: '0' };

describeEachDialect('single-use transitions of the API', (dialect) => {
  const s = useTestService(dialect, { webhookAllowNets: ['127.0.0.0/8'], env });
  const race = <T>(fn: () => Promise<T>) => Promise.all(Array.from({ length: RACERS }, fn));
  const statuses = (results: { status: number }[]) => results.map((r) => r.status).sort();

  it('rotates a key once under concurrent rotations: one 201 and one successor, the others 409', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'raced', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const results = await race(() => s.request('POST', `/v1/keys/${keyId}/rotate`, {}));
    expect(statuses(results)).toEqual([201, ...Array<number>(RACERS - 1).fill(409)]);
    for (const lost of results.filter((r) => r.status === 409)) {
      expect(lost.json).toMatchObject({ code: 'conflict' });
      expect(lost.json.detail).toContain('already rotated');
    }
    const rows = (await s.testStore.rows('api_keys')).filter((k) => k.name === 'raced');
    expect(rows).toHaveLength(2);
    const winner = results.find((r) => r.status === 201)!;
    expect(rows.find((k) => k.id === keyId)?.rotated_to).toBe(winner.json.key.keyId);
    // The successor is the one live key of the pair that can be rotated again.
    expect((await s.request('POST', `/v1/keys/${keyId}/rotate`, {})).status).toBe(409);
    expect((await s.request('POST', `/v1/keys/${winner.json.key.keyId}/rotate`, {})).status).toBe(201);
  });

  it('revokes a key once under concurrent revocations: the same revocation time for every caller', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'revoked', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const results = await race(() => s.request('DELETE', `/v1/keys/${keyId}`));
    expect(statuses(results)).toEqual(Array<number>(RACERS).fill(200));
    const times = new Set(results.map((r) => r.json.revokedAt));
    expect(times.size).toBe(1);
    expect((await s.request('GET', '/v1/policy', undefined, created.json.secret)).status).toBe(401);
  });

  it('a rotation racing a revocation never leaves a successor of a key revoked first', async () => {
    const created = await s.request('POST', '/v1/keys', { name: 'mixed', scopes: ['receipts:read'] });
    const keyId: string = created.json.key.keyId;
    const [rotation, revocation] = await Promise.all([
      s.request('POST', `/v1/keys/${keyId}/rotate`, {}),
      s.request('DELETE', `/v1/keys/${keyId}`),
    ]);
    expect(revocation.status).toBe(200);
    const rows = (await s.testStore.rows('api_keys')).filter((k) => k.name === 'mixed');
    expect(rows).toHaveLength(rotation.status === 201 ? 2 : 1);
    if (rotation.status !== 201) expect(rotation.status).toBe(409);
  });

  it('revokes a credential once under concurrent revocations: one credential.revoked event', async () => {
    const { credential } = await s.enroll('racing-subject');
    const results = await race(() => s.request('DELETE', `/v1/presence/credentials/${credential.id}`));
    expect(statuses(results)).toEqual(Array<number>(RACERS).fill(200));
    expect(new Set(results.map((r) => r.json.credential.revokedAt)).size).toBe(1);
    const events = (await s.testStore.rows('outbox_events')).filter(
      (e) => e.type === 'credential.revoked' && String(e.payload).includes(credential.id),
    );
    expect(events).toHaveLength(1);
  });

  it('consumes a registration once when several passkeys finish it at the same time: one credential', async () => {
    const subject = 'registration-racer';
    const options = await s.request('POST', '/v1/presence/credentials/options', { subject });
    const challenge: string = options.json.publicKey.challenge;
    // A different authenticator per racer: only the registration's compare-and-set stands between them.
    const results = await race(() =>
      s.request('POST', '/v1/presence/credentials', {
        registrationId: options.json.registrationId,
        credential: new SoftAuthenticator(RP_ID, ORIGIN).register({ challenge }),
      }),
    );
    expect(statuses(results)).toEqual([201, ...Array<number>(RACERS - 1).fill(410)]);
    for (const lost of results.filter((r) => r.status === 410))
      expect(lost.json.code).toBe('registration_expired');
    expect((await s.testStore.rows('credentials')).filter((c) => c.subject === subject)).toHaveLength(1);
    const events = (await s.testStore.rows('outbox_events')).filter(
      (e) => e.type === 'credential.registered' && String(e.payload).includes(subject),
    );
    expect(events).toHaveLength(1);
  });

  it('webhook secret rotations that race are serialized: none overwrites a secret it did not read', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/hook',
      events: ['receipt.created'],
    });
    const id: string = created.json.endpoint.id;
    const results = await race(() =>
      s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, { overlapSeconds: 60 }),
    );
    // Rotations are repeatable, so several may win one after the other; a lost one is a 409.
    const won: string[] = results.filter((r) => r.status === 200).map((r) => r.json.secret);
    expect(won.length).toBeGreaterThan(0);
    for (const lost of results.filter((r) => r.status !== 200)) expect(lost.json.code).toBe('conflict');
    const endpoint = (await s.composed.deps.store.webhooks.endpoints.get(s.tenantId, id))!;
    const [current, previous] = signingSecrets(s.composed.deps, endpoint, s.clock.now());
    expect(won).toContain(current);
    // The secret each winner replaced is the one the winner before it returned (a chain): without
    // the compare-and-set, two rotations both replaced the first secret and one secret vanished.
    if (won.length === 1) expect(previous).toBe(created.json.secret);
    else expect(won.filter((w) => w !== current)).toContain(previous);
  });

  it('a webhook secret rotation that read a secret since replaced writes nothing (the compare-and-set)', async () => {
    const created = await s.request('POST', '/v1/webhooks/endpoints', {
      url: 'http://127.0.0.1:9/stale',
      events: ['receipt.created'],
    });
    const id: string = created.json.endpoint.id;
    const endpoints = s.composed.deps.store.webhooks.endpoints;
    const stale = (await endpoints.get(s.tenantId, id))!;
    expect((await s.request('POST', `/v1/webhooks/endpoints/${id}/rotate-secret`, {})).status).toBe(200);
    const change = { secretSealed: stale.secretSealed, secretCreatedAt: 1, updatedAt: 1 };
    expect(await endpoints.update(s.tenantId, id, change, stale.secretSealed)).toBeUndefined();
    expect((await endpoints.get(s.tenantId, id))!.secretSealed).not.toBe(stale.secretSealed);
  });

  it('schedules one signing-key rotation when several are asked at once', async () => {
    const deps = s.composed.deps;
    const minimum = 2 * deps.signer.refreshMs + 1000;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        rotateSigningKey(deps, deps.signer.refreshMs, { leadMs: minimum, overlapMs: minimum }),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
    }
    const now = deps.clock.now();
    const scheduled = (await deps.store.signingKeys.list()).filter((k) => k.notBefore > now);
    expect(scheduled).toHaveLength(1);
  });

  /** The final events (approved, rejected, expired, cancelled) of one approval in the outbox. */
  const finalEvents = async (approvalId: string) =>
    (await s.testStore.rows('outbox_events'))
      .filter((e) => String(e.payload).includes(approvalId))
      .map((e) => String(e.type))
      .filter((type) => type.startsWith('approval.') && type !== 'approval.created');
  const storedApproval = async (approvalId: string) =>
    (await s.composed.deps.store.approvals.approvals.get(s.tenantId, approvalId))!;
  const approvalSet = (approvalId: string) =>
    s.composed.deps.store.approvals.sets.get(s.tenantId, approvalId);

  /** Options for `who` on the approval's page, then a function that posts the decision. */
  async function preparedDecision(token: string, who: SoftAuthenticator) {
    const options = await s.request('POST', `/approve/${token}/options`, { intent: 'approve' }, '');
    expect(options.status).toBe(200);
    const assertion = who.assert({ challenge: options.json.publicKey.challenge });
    return () =>
      s.request('POST', `/approve/${token}/decide`, { challengeId: options.json.challengeId, assertion }, '');
  }

  /**
   * A decision's receipt is never lost: a decision refused before its ceremony (410, the approval
   * already ended) made none; any other names its receipt (a 409 in its detail), which is stored.
   */
  async function expectReceiptKept(decided: { status: number; json: any }, subject: string) {
    if (decided.status === 410) return expect(decided.json.code).toBe('link_expired');
    const receiptId: string =
      decided.status === 200 ? decided.json.receiptId : /receipt (rct_\w+)/.exec(decided.json.detail)![1]!;
    const receipt = await s.request('GET', `/v1/presence/receipts/${receiptId}`);
    expect(receipt.status).toBe(200);
    expect(receipt.json.receipt.subject).toBe(subject);
  }

  it('cancels an approval once under concurrent cancels: one 200, the rest 409, one approval.cancelled event', async () => {
    await s.enroll('cancel-racer');
    const created = await s.request('POST', '/v1/approvals', {
      action: { type: 'cancel-race' },
      approvers: ['cancel-racer'],
    });
    const approvalId: string = created.json.approvalId;
    const results = await race(() => s.request('POST', `/v1/approvals/${approvalId}/cancel`));
    expect(statuses(results)).toEqual([200, ...Array<number>(RACERS - 1).fill(409)]);
    for (const lost of results.filter((r) => r.status === 409)) {
      expect(lost.json).toMatchObject({ code: 'approval_not_pending' });
      expect(lost.json.detail).toContain('the approval is cancelled');
    }
    expect(await finalEvents(approvalId)).toEqual(['approval.cancelled']);
    const audit = await s.composed.deps.store.auditEvents.list(s.tenantId, {}, { limit: 200 });
    expect(audit.filter((a) => a.target.id === approvalId && a.action === 'approval.cancelled')).toHaveLength(
      1,
    );
  });

  it('a cancel racing the last approving decision: one final status, a set only when approved, the receipt kept', async () => {
    const first = (await s.enroll('quorum-1')).authenticator;
    const last = (await s.enroll('quorum-2')).authenticator;
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const created = await s.request('POST', '/v1/approvals', {
        action: { type: 'cancel-or-approve', round },
        approvers: ['quorum-1', 'quorum-2'],
        required: 2,
      });
      const approvalId: string = created.json.approvalId;
      const token = tokenOf(created.json.approvalUrl);
      expect((await ceremony(s, token, 'approve', first)).json.recorded).toBe(true);
      const decide = await preparedDecision(token, last);
      // Later rounds give the decision a head start, so both orders happen.
      const [decided, cancelled] = await Promise.all([
        decide(),
        new Promise((r) => setTimeout(r, 3 * round)).then(() =>
          s.request('POST', `/v1/approvals/${approvalId}/cancel`),
        ),
      ]);
      const status = (await storedApproval(approvalId)).status;
      outcomes.push(status);
      expect(['approved', 'cancelled']).toContain(status);
      expect(cancelled.status).toBe(status === 'cancelled' ? 200 : 409);
      if (status === 'approved') expect(decided.json.state.status).toBe('approved');
      else expect([409, 410]).toContain(decided.status);
      expect(await finalEvents(approvalId)).toEqual([`approval.${status}`]);
      expect((await approvalSet(approvalId)) !== undefined).toBe(status === 'approved');
      await expectReceiptKept(decided, 'quorum-2');
    }
    console.info(`${dialect}: cancel vs last decision, final statuses ${outcomes.join(', ')}`);
  });

  it("the expiry job racing an approver's decision: one final status, a set only when approved", async () => {
    const approver = (await s.enroll('expiry-racer')).authenticator;
    // The job's clock reads past the expiry while the decision's still reads before it: both may
    // act, and the store's compare-and-set lets one of them end the approval.
    const job = { ...s.composed.deps, clock: { now: () => s.clock.now() + 61_000 } };
    const outcomes: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const created = await s.request('POST', '/v1/approvals', {
        action: { type: 'expire-or-approve', round },
        approvers: ['expiry-racer'],
        expiresInSeconds: 60,
      });
      const approvalId: string = created.json.approvalId;
      const decide = await preparedDecision(tokenOf(created.json.approvalUrl), approver);
      const [decided] = await Promise.all([
        decide(),
        new Promise((r) => setTimeout(r, 3 * round)).then(() => expireApprovals(job)),
      ]);
      const status = (await storedApproval(approvalId)).status;
      outcomes.push(status);
      expect(['approved', 'expired']).toContain(status);
      if (status === 'approved') expect(decided.status).toBe(200);
      else expect([409, 410]).toContain(decided.status);
      expect(await finalEvents(approvalId)).toEqual([`approval.${status}`]);
      expect((await approvalSet(approvalId)) !== undefined).toBe(status === 'approved');
      await expectReceiptKept(decided, 'expiry-racer');
    }
    console.info(`${dialect}: expiry job vs decision, final statuses ${outcomes.join(', ')}`);
  });
});
