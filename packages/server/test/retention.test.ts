/**
 * Retention on both dialects: after the retention window, finished rows go (delivered events,
 * completed deliveries and their attempts, expired challenges and registration ceremonies that
 * back nothing), while everything evidence depends on stays: the verified challenge, its receipt,
 * the registration its credential came from. The receipt still verifies afterwards. The second
 * test prints pruning throughput (rows/s) for docs/operations.md.
 */
import { computeActionHashSync as computeActionHash } from '@presence/sdk/node';
import { expect, it } from 'vitest';
import { pruneExpiredRows } from '../src/domain/retention/prune-expired-rows.js';
import { DEFAULT_RETENTION_SETTINGS } from '../src/domain/retention/retention-settings.js';
import { openDatabase } from '../src/storage/open-database.js';
import { describeEachDialect } from './support/each-dialect.js';
import type { TestService } from './support/test-service.js';
import {
  createEndpoint,
  deliverDue,
  receiverPool,
  sendTest,
  useWebhookService,
} from './support/webhook-helpers.js';

const DAYS_31 = 31 * 24 * 3600;

async function pruneAll(s: TestService, batchSize: number): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  const deps = s.composed.deps;
  for (let pass = 0; pass < 10_000; pass++) {
    const { deleted, more } = await pruneExpiredRows(deps, { ...DEFAULT_RETENTION_SETTINGS, batchSize });
    for (const [t, n] of Object.entries(deleted)) totals[t] = (totals[t] ?? 0) + n;
    if (!more) return totals;
  }
  throw new Error('pruning did not finish');
}

describeEachDialect('retention', (dialect) => {
  const pool = receiverPool();
  const s = useWebhookService(dialect, (started) => pool.closeWith(started));

  const challenge = async (n: number) => {
    const res = await s.request('POST', '/v1/presence/challenge', {
      actionHashHex: computeActionHash({ n }),
      subject: 'alice',
    });
    expect(res.status).toBe(201);
    return res.json;
  };

  it('prunes finished rows past their window and keeps what evidence references', async () => {
    const receiver = await pool.start();
    const { authenticator } = await s.enroll('alice');
    const endpoint = await createEndpoint(s, receiver.url);
    const oldDelivery = await sendTest(s, endpoint.id);
    await deliverDue(s);
    const verified = await challenge(1);
    const verify = await s.request('POST', '/v1/presence/verify', {
      challengeId: verified.challengeId,
      assertion: authenticator.assert({ challenge: verified.publicKey.challenge }),
    });
    expect(verify.json.decision).toBe('PRESENCE_VERIFIED');
    const abandoned = await challenge(2);
    const openRegistration = await s.request('POST', '/v1/presence/credentials/options', {
      subject: 'bob',
    });

    s.clock.advance(DAYS_31);
    const recent = await challenge(3);
    const newDelivery = await sendTest(s, endpoint.id);
    await deliverDue(s);
    const before = await s.testStore.rows('webhook_attempts');
    expect(before.filter((a) => a.delivery_id === oldDelivery)).toHaveLength(1);

    const totals = await pruneAll(s, 1);

    const ids = async (table: 'challenges' | 'registrations' | 'webhook_deliveries' | 'outbox_events') =>
      (await s.testStore.rows(table)).map((r) => r.id);
    const challenges = await ids('challenges');
    expect(challenges).toContain(verified.challengeId);
    expect(challenges).toContain(recent.challengeId);
    expect(challenges).not.toContain(abandoned.challengeId);
    const registrations = await ids('registrations');
    expect(registrations).not.toContain(openRegistration.json.registrationId);
    expect(registrations).toHaveLength(1); // alice's, which her credential references
    const deliveries = await ids('webhook_deliveries');
    expect(deliveries).toEqual([newDelivery]);
    const attempts = await s.testStore.rows('webhook_attempts');
    expect(attempts.map((a) => a.delivery_id)).toEqual([newDelivery]);
    expect(await s.testStore.rows('receipts')).toHaveLength(1);
    expect(totals['challenges']).toBe(1);
    expect(totals['webhook_deliveries']).toBe(1);
    expect(totals['webhook_attempts']).toBe(1);
    // The old event went with its delivery; credential.registered and presence events of the
    // verified challenge had no subscriber, so they went too once fanned out.
    expect(totals['outbox_events']).toBeGreaterThanOrEqual(1);
    const events = await s.testStore.rows('outbox_events');
    const byDelivery = await s.testStore.rows('webhook_deliveries');
    expect(events.map((e) => e.id)).toContain(byDelivery[0]!.event_id);

    const check = await s.request('POST', '/v1/presence/receipts/verify', {
      receiptId: verify.json.receiptId,
      receiptHashHex: verify.json.receiptHashHex,
    });
    expect(check.status).toBe(200);
    expect(check.json.valid).toBe(true);
    expect((await s.request('GET', `/v1/presence/challenges/${abandoned.challengeId}`)).status).toBe(404);
  });

  it('prunes console sessions that ended (expired or signed out) before the window, and only those', async () => {
    const store = s.composed.deps.store;
    const now = s.clock.now();
    const day = 24 * 3600 * 1000;
    const member = `mem_retention_${dialect}`;
    await store.console.members.insert({
      id: member,
      tenantId: s.tenantId,
      displayName: 'Retention',
      role: 'auditor',
      createdAt: now - 90 * day,
      removedAt: null,
    });
    const session = (id: string, expiresAt: number, revokedAt: number | null) =>
      store.console.sessions.insert({
        id,
        tenantId: s.tenantId,
        memberId: member,
        tokenHash: id.padEnd(64, '0'),
        createdAt: now - 60 * day,
        lastSeenAt: now - 60 * day,
        expiresAt,
        revokedAt,
      });
    await session('ses_expired_long_ago', now - 40 * day, null);
    await session('ses_signed_out_long_ago', now + day, now - 40 * day);
    await session('ses_expired_recently', now - 2 * day, null);
    await session('ses_live', now + day, null);

    const totals = await pruneAll(s, 1);

    expect(totals['console_sessions']).toBe(2);
    expect((await s.testStore.rows('console_sessions')).map((r) => r.id).sort()).toEqual([
      'ses_expired_recently',
      'ses_live',
    ]);
  });

  it('measures pruning throughput', async () => {
    const count = 20_000;
    const handle = await openDatabase(s.testStore.options);
    try {
      const template = (await s.testStore.rows('challenges'))[0]!;
      const expired = s.clock.now() - DAYS_31 * 1000;
      for (let i = 0; i < count; i += 500) {
        const rows = Array.from({ length: Math.min(500, count - i) }, (_, j) => ({
          ...template,
          id: `chl_retention${String(i + j).padStart(8, '0')}`,
          expires_at: expired,
          status: 'pending',
          receipt_id: null,
          used_at: null,
          decision: null,
          reason: null,
          credential_ref: null,
        }));
        await handle.db.insertInto('challenges').values(rows).execute();
      }
    } finally {
      await handle.db.destroy();
    }
    const started = performance.now();
    const totals = await pruneAll(s, DEFAULT_RETENTION_SETTINGS.batchSize);
    const seconds = (performance.now() - started) / 1000;
    expect(totals['challenges']).toBe(count);
    console.log(
      `retention throughput (${dialect}): ${count} expired challenges in ${seconds.toFixed(2)} s = ` +
        `${Math.round(count / seconds)} rows/s (batches of ${DEFAULT_RETENTION_SETTINGS.batchSize})`,
    );
  }, 120_000);
});
