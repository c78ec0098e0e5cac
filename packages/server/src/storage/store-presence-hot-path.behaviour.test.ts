/**
 * The Store's behaviour, the verify hot path (hot-path/): one read for challenge and credential, and
 * the verified and denied write sets in one call each. Same suite for both dialects; the outcomes
 * must equal what the general repos produce.
 */
import { describe, expect, it } from 'vitest';
import { BillingPeriodClosed } from '../domain/billing/ports.js';
import type { CredentialRecord } from '../domain/credentials/ports.js';
import type { ChallengeRecord, VerifiedSettlement } from '../domain/presence/ports.js';
import type { Store, StoreTx } from '../domain/ports.js';
import { openStore } from './open-store.js';
import { seedTenant, T0, TestRecords } from './test-records.js';
import { describeEachDialect, useTestStore } from './each-dialect.js';

const AT = T0 + 5_000;

describeEachDialect(
  (dialect) => `store behaviour: verify hot path (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect);
    const records = new TestRecords();

    async function scene(store: Store) {
      const { tenant, policy } = await seedTenant(store, records);
      const reg = records.registration(tenant.id, policy.id);
      await store.registrations.insert(reg);
      const credential = records.credential(tenant.id, reg, { signCount: 5 });
      await store.credentials.insert(credential);
      const challenge = records.challenge(tenant.id, policy.id);
      await store.challenges.insert(challenge);
      return { tenant, policy, credential, challenge };
    }

    /** The tenant's hourly rollups in the hours around T0. */
    const hourRollups = (tenantId: string) =>
      db.store.billing.rollups.list(tenantId, 'hour', T0 - 3_600_000, T0 + 3_600_000);

    const verified = (challenge: ChallengeRecord, credential: CredentialRecord, expected = 5, at = AT) =>
      records.verified(
        challenge,
        { id: credential.id, expectedSignCount: expected, signCount: 9, backedUp: true },
        at,
      );

    /** One tenant with `n` credentials (signCount 5), each with a pending challenge. */
    async function crowd(store: Store, n: number) {
      const { tenant, policy } = await seedTenant(store, records);
      const reg = records.registration(tenant.id, policy.id);
      await store.registrations.insert(reg);
      const pairs: { credential: CredentialRecord; challenge: ChallengeRecord }[] = [];
      for (let i = 0; i < n; i++) {
        const credential = records.credential(tenant.id, reg, { signCount: 5 });
        await store.credentials.insert(credential);
        const challenge = records.challenge(tenant.id, policy.id);
        await store.challenges.insert(challenge);
        pairs.push({ credential, challenge });
      }
      return { tenant, policy, pairs };
    }

    /** Settles run at once, each on its own (as concurrent verifications do). */
    const settleAtOnce = (list: VerifiedSettlement[]) =>
      Promise.allSettled(
        list.map((s) => db.store.selfContainedWrites((tx) => tx.presence.settleVerified(s))),
      );

    /** A SIGNATURE_INVALID denial of the challenge, with its usage and event. */
    const denied = (challenge: ChallengeRecord, eventId: string) =>
      records.denied(challenge, AT, { event: { id: eventId } });

    it('reads the challenge and the named credential in one call, tenant-scoped', async () => {
      const { tenant, credential, challenge } = await scene(db.store);
      const other = await seedTenant(db.store, records);
      const read = await db.store.presence.readForVerify(tenant.id, challenge.id, credential.credentialId);
      // The credential as a presence check uses it, without the enrollment evidence.
      const { id, tenantId, credentialId, subject, publicKeyB64Url, algorithm } = credential;
      const { signCount, backupEligible, revokedAt } = credential;
      expect(read).toStrictEqual({
        challenge,
        credential: {
          id,
          tenantId,
          credentialId,
          subject,
          publicKeyB64Url,
          algorithm,
          signCount,
          backupEligible,
          revokedAt,
        },
      });
      const unknown = await db.store.presence.readForVerify(tenant.id, challenge.id, 'bm9wZQ');
      expect(unknown).toEqual({ challenge, credential: undefined });
      expect(await db.store.presence.readForVerify(tenant.id, challenge.id, null)).toEqual({
        challenge,
        credential: undefined,
      });
      expect(
        await db.store.presence.readForVerify(other.tenant.id, challenge.id, credential.credentialId),
      ).toBeUndefined();
    });

    it("lists a subject's active credentials for a new challenge, as the credentials repo does", async () => {
      const { tenant, policy, credential: first } = await scene(db.store);
      const reg = records.registration(tenant.id, policy.id);
      await db.store.registrations.insert(reg);
      const more = [
        records.credential(tenant.id, reg, { transports: ['usb', 'nfc'] }),
        records.credential(tenant.id, reg, { revokedAt: AT }),
        records.credential(tenant.id, reg, { transports: [] }),
        records.credential(tenant.id, reg, { subject: 'user-2' }),
      ];
      for (const c of more) await db.store.credentials.insert(c);
      const other = await seedTenant(db.store, records);
      const otherReg = records.registration(other.tenant.id, other.policy.id);
      await db.store.registrations.insert(otherReg);
      await db.store.credentials.insert(records.credential(other.tenant.id, otherReg));

      const listed = await db.store.presence.allowedCredentials(tenant.id, 'user-1', 100);
      const viaRepo = await db.store.credentials.list(
        tenant.id,
        { subject: 'user-1', includeRevoked: false },
        { limit: 100 },
      );
      expect(listed).toEqual(
        viaRepo.map((c) => ({ credentialId: c.credentialId, transports: c.transports })),
      );
      expect(listed.map((c) => c.credentialId).sort()).toEqual(
        [first, more[0]!, more[2]!].map((c) => c.credentialId).sort(),
      );
      expect(await db.store.presence.allowedCredentials(tenant.id, 'user-1', 2)).toEqual(listed.slice(0, 2));
      expect(await db.store.presence.allowedCredentials(tenant.id, 'nobody', 100)).toEqual([]);
    });

    // The write sets inside a transaction (the main connection), and on their own (SQLite's
    // writer thread; PostgreSQL's autocommit and settle batches): the same outcomes both ways.
    for (const how of ['in a transaction', 'on their own'] as const) {
      describe(how, () => {
        const write = <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> =>
          how === 'in a transaction' ? db.store.transaction(fn) : db.store.selfContainedWrites(fn);

        it('settles a verification: counter, challenge, receipt with the next seq, usage, rollups, event', async () => {
          const { tenant, credential, challenge } = await scene(db.store);
          const s = verified(challenge, credential);
          const outcome = await write((tx) => tx.presence.settleVerified(s));
          expect(outcome).toEqual({ kind: 'settled', seq: 1 });
          expect(await db.store.challenges.get(tenant.id, challenge.id)).toMatchObject({
            status: 'verified',
            usedAt: AT,
            decision: 'PRESENCE_VERIFIED',
            reason: null,
            receiptId: s.receipt.id,
            credentialRef: credential.id,
          });
          expect(await db.store.credentials.get(tenant.id, credential.id)).toMatchObject({
            signCount: 9,
            backedUp: true,
            lastUsedAt: AT,
          });
          expect(await db.store.receipts.get(tenant.id, s.receipt.id)).toEqual({ ...s.receipt, seq: 1 });
          expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(1);
          const hours = await hourRollups(tenant.id);
          expect(hours).toEqual([expect.objectContaining({ meter: 'presence.verified', quantity: 1 })]);
          const second = await scene(db.store);
          const next = verified(second.challenge, second.credential);
          expect(await write((tx) => tx.presence.settleVerified(next))).toMatchObject({
            kind: 'settled',
          });
        });

        it('writes nothing when the counter moved, and reports a decided challenge', async () => {
          const { tenant, credential, challenge } = await scene(db.store);
          const moved = await write((tx) => tx.presence.settleVerified(verified(challenge, credential, 4)));
          expect(moved).toEqual({ kind: 'counter-moved' });
          expect((await db.store.challenges.get(tenant.id, challenge.id))?.status).toBe('pending');
          expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(0);
          await db.store.credentials.revoke(tenant.id, credential.id, AT);
          const revoked = await write((tx) => tx.presence.settleVerified(verified(challenge, credential)));
          expect(revoked).toEqual({ kind: 'counter-moved' });

          const fresh = await scene(db.store);
          expect(
            await write((tx) => tx.presence.settleDenied(denied(fresh.challenge, records.id('evt')))),
          ).toBe('settled');
          const decided = await write((tx) =>
            tx.presence.settleVerified(verified(fresh.challenge, fresh.credential)),
          );
          expect(decided).toEqual({ kind: 'already-decided' });
        });

        it('settles a denial once: challenge, usage, rollups and event; a second call changes nothing', async () => {
          const { tenant, challenge } = await scene(db.store);
          const denial = (id: string) => denied(challenge, id);
          expect(await write((tx) => tx.presence.settleDenied(denial(records.id('evt'))))).toBe('settled');
          expect(await db.store.challenges.get(tenant.id, challenge.id)).toMatchObject({
            status: 'denied',
            decision: 'SIGNATURE_INVALID',
            reason: 'bad signature',
          });
          expect(await write((tx) => tx.presence.settleDenied(denial(records.id('evt'))))).toBe(
            'already-decided',
          );
          const hours = await hourRollups(tenant.id);
          expect(hours).toEqual([expect.objectContaining({ meter: 'presence.denied', quantity: 1 })]);
        });

        it('refuses to count in a sealed month, and rolls back with it', async () => {
          const { tenant, credential, challenge } = await scene(db.store);
          const month = Date.UTC(new Date(AT).getUTCFullYear(), new Date(AT).getUTCMonth(), 1);
          await write((tx) => tx.billing.rollups.sealMonth(tenant.id, month, ['presence.verified']));
          await expect(
            write((tx) => tx.presence.settleVerified(verified(challenge, credential))),
          ).rejects.toBeInstanceOf(BillingPeriodClosed);
          expect((await db.store.challenges.get(tenant.id, challenge.id))?.status).toBe('pending');
          expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(0);
        });

        it('creates a challenge under the quota: counter, challenge, usage and rollups; nothing once full', async () => {
          const { tenant, policy } = await seedTenant(db.store, records);
          const create = (limit: number | null) => {
            const challenge = records.challenge(tenant.id, policy.id, { createdAt: AT });
            const usage = {
              id: records.id('use'),
              tenantId: tenant.id,
              meter: 'challenges.created',
              quantity: 1,
              occurredAt: AT,
              sourceId: challenge.id,
            };
            const made = write(async (tx) => {
              const counter = await tx.presence.createChallenge({
                challenge,
                usage,
                quota: { periodStart: T0, limit },
              });
              if (!counter) throw new Error('quota full');
              return counter;
            });
            return { challenge, made };
          };
          const first = create(2);
          expect(await first.made).toEqual({ used: 1, threshold80At: null, threshold100At: null });
          expect(await db.store.challenges.get(tenant.id, first.challenge.id)).toEqual(first.challenge);
          expect((await create(2).made).used).toBe(2);
          const full = create(2);
          await expect(full.made).rejects.toThrow('quota full');
          expect(await db.store.challenges.get(tenant.id, full.challenge.id)).toBeUndefined();
          expect(await db.store.billing.quotas.get(tenant.id, T0)).toMatchObject({ used: 2 });
          expect((await create(null).made).used).toBe(3);
          const hours = await hourRollups(tenant.id);
          expect(hours).toEqual([expect.objectContaining({ meter: 'challenges.created', quantity: 3 })]);
        });
      });
    }

    it('in a sealed month, a settle or creation run on its own (selfContainedWrites) writes nothing at all', async () => {
      const { tenant, credential, challenge } = await scene(db.store);
      const { policy } = await seedTenant(db.store, records);
      const month = Date.UTC(new Date(AT).getUTCFullYear(), new Date(AT).getUTCMonth(), 1);
      await db.store.transaction((tx) =>
        tx.billing.rollups.sealMonth(tenant.id, month, [
          'presence.verified',
          'presence.denied',
          'challenges.created',
        ]),
      );
      const before = {
        outbox: (await db.rows('outbox_events')).length,
        usage: (await db.rows('usage_events')).length,
        credential: await db.store.credentials.get(tenant.id, credential.id),
      };
      await expect(
        db.store.selfContainedWrites((tx) => tx.presence.settleVerified(verified(challenge, credential))),
      ).rejects.toBeInstanceOf(BillingPeriodClosed);
      await expect(
        db.store.selfContainedWrites((tx) => tx.presence.settleDenied(denied(challenge, records.id('evt')))),
      ).rejects.toBeInstanceOf(BillingPeriodClosed);
      const fresh = records.challenge(tenant.id, policy.id, { createdAt: AT });
      await expect(
        db.store.selfContainedWrites((tx) =>
          tx.presence.createChallenge({
            challenge: { ...fresh, tenantId: tenant.id },
            usage: {
              id: records.id('use'),
              tenantId: tenant.id,
              meter: 'challenges.created',
              quantity: 1,
              occurredAt: AT,
              sourceId: fresh.id,
            },
            quota: { periodStart: month, limit: null },
          }),
        ),
      ).rejects.toBeInstanceOf(BillingPeriodClosed);
      expect((await db.store.challenges.get(tenant.id, challenge.id))?.status).toBe('pending');
      expect(await db.store.challenges.get(tenant.id, fresh.id)).toBeUndefined();
      expect(await db.store.billing.quotas.get(tenant.id, month)).toBeUndefined();
      expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(0);
      expect((await db.rows('outbox_events')).length).toBe(before.outbox);
      expect((await db.rows('usage_events')).length).toBe(before.usage);
      expect(await db.store.credentials.get(tenant.id, credential.id)).toEqual(before.credential);
    });

    it('settles a burst of one tenant at once: each its own outcome, receipts numbered without gaps', async () => {
      const { tenant, policy, pairs } = await crowd(db.store, 12);
      const twice = records.challenge(tenant.id, policy.id);
      await db.store.challenges.insert(twice);
      const burst = [
        ...pairs.slice(0, 10).map(({ challenge, credential }) => verified(challenge, credential)),
        // A stale counter.
        verified(pairs[10]!.challenge, pairs[10]!.credential, 4),
        // Credential 0 for a second challenge at once: whichever settles first moves the counter
        // the other expected.
        verified(twice, pairs[0]!.credential),
        // Challenge 1 a second time, with another credential: one decision only.
        verified(pairs[1]!.challenge, pairs[11]!.credential),
      ];
      const outcomes = (await settleAtOnce(burst)).map((r) => {
        if (r.status === 'rejected') throw r.reason;
        return r.value;
      });
      const kinds = outcomes.map((o) => o.kind);
      expect(kinds[10]).toBe('counter-moved');
      expect([kinds[0], kinds[11]].sort()).toEqual(['counter-moved', 'settled']);
      expect([kinds[1], kinds[12]].sort()).toEqual(['already-decided', 'settled']);
      const won = burst.filter((_, i) => kinds[i] === 'settled');
      const seqs = outcomes.flatMap((o) => (o.kind === 'settled' ? [o.seq] : []));
      expect(won).toHaveLength(10);
      expect([...seqs].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      for (const [i, s] of won.entries()) {
        expect(await db.store.receipts.get(tenant.id, s.receipt.id)).toEqual({
          ...s.receipt,
          seq: seqs[i],
        });
        expect(await db.store.challenges.get(tenant.id, s.receipt.challengeId)).toMatchObject({
          status: 'verified',
          receiptId: s.receipt.id,
          credentialRef: s.credentialUse.id,
        });
      }
      const lost = kinds[0] === 'settled' ? twice : pairs[0]!.challenge;
      expect((await db.store.challenges.get(tenant.id, lost.id))?.status).toBe('pending');
      expect((await db.store.credentials.get(tenant.id, pairs[10]!.credential.id))?.signCount).toBe(5);
      // The loser of challenge 1 had a good signature, so its counter moved, as when it settles
      // alone; the challenge did not.
      for (const i of [1, 11]) {
        expect((await db.store.credentials.get(tenant.id, pairs[i]!.credential.id))?.signCount).toBe(9);
      }
      expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(10);
      const ours = (rows: Record<string, unknown>[]) => rows.filter((r) => r.tenant_id === tenant.id);
      expect(ours(await db.rows('usage_events'))).toHaveLength(10);
      const events = ours(await db.rows('outbox_events')).map((r) => r.id);
      expect(events.sort()).toEqual(won.map((s) => s.event.id).sort());
      for (const granularity of ['month', 'day', 'hour'] as const) {
        const around = [T0 - 40 * 86_400_000, T0 + 40 * 86_400_000] as const;
        const rollups = await db.store.billing.rollups.list(tenant.id, granularity, ...around);
        expect(rollups).toEqual([expect.objectContaining({ meter: 'presence.verified', quantity: 10 })]);
      }
    });

    it('two stores (as two processes) settling crossing bursts for one tenant neither deadlock nor decide twice', async () => {
      const second = await openStore(db.options);
      try {
        for (let round = 0; round < 3; round++) {
          const { tenant, policy, pairs } = await crowd(db.store, 8);
          // Each credential is offered twice, once through each store, in opposite orders, so the
          // two stores' batches want the same rows in crossing order.
          const others: ChallengeRecord[] = [];
          for (let i = 0; i < pairs.length; i++) {
            const other = records.challenge(tenant.id, policy.id);
            await db.store.challenges.insert(other);
            others.push(other);
          }
          const viaFirst = pairs.map(({ challenge, credential }) => verified(challenge, credential));
          const viaSecond = pairs.map(({ credential }, i) => verified(others[i]!, credential)).reverse();
          const [first, other] = await Promise.all([
            settleAtOnce(viaFirst),
            Promise.allSettled(
              viaSecond.map((x) => second.selfContainedWrites((tx) => tx.presence.settleVerified(x))),
            ),
          ]);
          const kinds = [...first, ...other].map((r) => {
            if (r.status === 'rejected') throw r.reason;
            return r.value;
          });
          const seqs = kinds.flatMap((o) => (o.kind === 'settled' ? [o.seq] : []));
          expect(kinds.filter((o) => o.kind === 'counter-moved')).toHaveLength(8);
          expect(seqs.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
          expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(8);
        }
      } finally {
        await second.close();
      }
    });

    it('in a burst across a sealed month, only the settles in that month are refused', async () => {
      const { tenant, pairs } = await crowd(db.store, 4);
      const next = Date.UTC(new Date(AT).getUTCFullYear(), new Date(AT).getUTCMonth() + 1, 1);
      const month = Date.UTC(new Date(AT).getUTCFullYear(), new Date(AT).getUTCMonth(), 1);
      await db.store.transaction((tx) =>
        tx.billing.rollups.sealMonth(tenant.id, month, ['presence.verified']),
      );
      const at = [next - 1, next, next - 2, next + 1];
      const burst = pairs.map(({ challenge, credential }, i) => verified(challenge, credential, 5, at[i]));
      const results = await settleAtOnce(burst);
      expect(
        results.map((r) =>
          r.status === 'rejected' ? r.reason instanceof BillingPeriodClosed : r.value.kind,
        ),
      ).toEqual([true, 'settled', true, 'settled']);
      expect(await db.store.receiptLog.lastSeq(tenant.id)).toBe(2);
      for (const i of [0, 2]) {
        expect((await db.store.challenges.get(tenant.id, pairs[i]!.challenge.id))?.status).toBe('pending');
        expect((await db.store.credentials.get(tenant.id, pairs[i]!.credential.id))?.signCount).toBe(5);
      }
      const months = await db.store.billing.rollups.list(tenant.id, 'month', month, next + 1);
      expect(months).toEqual([
        expect.objectContaining({ start: month, quantity: 0 }),
        expect.objectContaining({ start: next, quantity: 2 }),
      ]);
    });
  },
);
