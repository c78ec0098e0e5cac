/**
 * The Store's behaviour, part 3: unique-constraint mapping, transactions, and conditional
 * updates under concurrency (on PostgreSQL the racing statements run on separate pooled
 * connections). Same suite for both dialects; see store.behaviour.test.ts.
 */
import { expect, it } from 'vitest';
import { describeEachDialect, useTestStore } from './each-dialect.js';
import { UniqueViolation } from '../domain/ports.js';
import type { ChallengeRecord } from '../domain/presence/ports.js';
import type { Store } from '../domain/ports.js';
import { seedTenant, T0, TestRecords } from './test-records.js';
import { openTestStore } from './testing.js';

const RACERS = 20;

function race<T>(run: (index: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: RACERS }, (_, index) => run(index)));
}

describeEachDialect(
  (dialect) => `store behaviour: integrity (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect, { pgPoolSize: 10 });
    const records = new TestRecords();

    /** A tenant with RACERS credentials (signCount 4) of one registration, and one pending challenge. */
    async function scene(store: Store) {
      const { tenant, policy } = await seedTenant(store, records);
      const reg = records.registration(tenant.id, policy.id);
      await store.registrations.insert(reg);
      const credentials = [];
      for (let i = 0; i < RACERS; i++) credentials.push(records.credential(tenant.id, reg, { signCount: 4 }));
      for (const c of credentials) await store.credentials.insert(c);
      const challenge = records.challenge(tenant.id, policy.id);
      await store.challenges.insert(challenge);
      return { tenant, policy, credentials, challenge };
    }

    /** What a verification of `challenge` with `credentialId` (from counter 4 to `signCount`) writes. */
    const verified = (challenge: ChallengeRecord, credentialId: string, signCount: number) =>
      records.verified(
        challenge,
        { id: credentialId, expectedSignCount: 4, signCount, backedUp: false },
        T0 + signCount,
      );

    const denied = (challenge: ChallengeRecord, usedAt: number) => records.denied(challenge, usedAt);

    it('maps unique violations to UniqueViolation with the same constraint name and the driver error as cause', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const key = records.apiKey(tenant.id);
      await db.store.apiKeys.insert(key);
      // Each insert starts only when awaited: an eagerly started one could reject unobserved.
      const attempts = [
        [() => db.store.tenants.insert(tenant), 'tenants_pkey'],
        [() => db.store.apiKeys.insert({ ...key, id: records.id('key') }), 'api_keys_key_hash_key'],
        [
          () => db.store.policies.insert({ ...policy, id: records.id('pol') }),
          'policies_tenant_id_version_key',
        ],
      ] as const;
      for (const [attempt, constraint] of attempts) {
        const error: unknown = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(UniqueViolation);
        expect(error).toMatchObject({ constraint });
        const code = (error as UniqueViolation & { cause: { code: string } }).cause.code;
        expect(code).toMatch(dialect === 'sqlite' ? /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/ : /^23505$/);
      }
    });

    it('passes other constraint errors through unchanged (foreign keys are enforced)', async () => {
      const orphan = records.policy('ten_missing');
      const error: unknown = await db.store.policies.insert(orphan).catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(UniqueViolation);
      expect(error).toMatchObject({ code: dialect === 'sqlite' ? 'SQLITE_CONSTRAINT_FOREIGNKEY' : '23503' });
    });

    it('transaction: commits every write together and returns the result', async () => {
      const tenant = records.tenant();
      const result = await db.store.transaction(async (tx) => {
        await tx.tenants.insert(tenant);
        await tx.policies.insert(records.policy(tenant.id));
        return tx.tenants.get(tenant.id);
      });
      expect(result).toEqual(tenant);
      expect((await db.store.policies.current(tenant.id))?.tenantId).toBe(tenant.id);
    });

    it('transaction: a throw inside leaves nothing behind and rethrows the same error', async () => {
      const tenant = records.tenant();
      const boom = new Error('boom');
      const run = db.store.transaction(async (tx) => {
        await tx.tenants.insert(tenant);
        await tx.policies.insert(records.policy(tenant.id));
        throw boom;
      });
      await expect(run).rejects.toBe(boom);
      expect(await db.store.tenants.get(tenant.id)).toBeUndefined();
      expect(await db.store.policies.current(tenant.id)).toBeUndefined();
    });

    it('transaction: a UniqueViolation inside rolls back the earlier writes', async () => {
      const { tenant } = await seedTenant(db.store, records);
      const fresh = records.tenant();
      const run = db.store.transaction(async (tx) => {
        await tx.tenants.insert(fresh);
        await tx.tenants.insert(tenant);
      });
      await expect(run).rejects.toBeInstanceOf(UniqueViolation);
      expect(await db.store.tenants.get(fresh.id)).toBeUndefined();
    });

    it('transaction: using the outer store or nesting inside it is an error, not a deadlock', async () => {
      const tenant = records.tenant();
      const outerRead = db.store.transaction(async () => db.store.tenants.get(tenant.id));
      await expect(outerRead).rejects.toThrow(/store used inside its own transaction/);
      // The hot path's reads, which on SQLite go to the writer thread instead of through Kysely.
      const hotRead = db.store.transaction(async () =>
        db.store.presence.readForVerify(tenant.id, 'chl_x', 'c'),
      );
      await expect(hotRead).rejects.toThrow(/store used inside its own transaction/);
      const allowed = db.store.transaction(async () =>
        db.store.presence.allowedCredentials(tenant.id, 's', 5),
      );
      await expect(allowed).rejects.toThrow(/store used inside its own transaction/);
      const nested = db.store.transaction(async () => db.store.transaction(async () => 1));
      await expect(nested).rejects.toThrow(/store used inside its own transaction/);
      await db.store.tenants.insert(tenant);
      expect(await db.store.tenants.get(tenant.id)).toEqual(tenant);
    });

    it('transaction: without the guard (the production default) the same call is not checked', async () => {
      const unguarded = await openTestStore(dialect, { transactionGuard: false });
      try {
        const tenant = records.tenant();
        // A read that reaches another connection than the transaction's on both dialects (SQLite's
        // writer thread; another pooled connection), so that without the check it simply runs.
        const hotRead = unguarded.store.transaction(async () =>
          unguarded.store.presence.readForVerify(tenant.id, 'chl_x', 'c'),
        );
        await expect(hotRead).resolves.toBeUndefined();
        const committed = await unguarded.store.transaction(async (tx) => {
          await tx.tenants.insert(tenant);
          return tx.tenants.get(tenant.id);
        });
        expect(committed).toEqual(tenant);
        expect(await unguarded.store.tenants.get(tenant.id)).toEqual(tenant);
      } finally {
        await unguarded.cleanup();
      }
    });

    it(`a settlement: ${RACERS} concurrent denials of one challenge, exactly one wins`, async () => {
      const { tenant, challenge: c } = await scene(db.store);
      const outcomes = await race((i) =>
        db.store.selfContainedWrites((tx) => tx.presence.settleDenied(denied(c, T0 + i))),
      );
      expect(outcomes.filter((o) => o === 'settled')).toHaveLength(1);
      const winner = outcomes.indexOf('settled');
      expect((await db.store.challenges.get(tenant.id, c.id))?.usedAt).toBe(T0 + winner);
      expect((await db.rows('usage_events')).filter((r) => r.source_id === c.id)).toHaveLength(1);
    });

    it(`registrations.consume: ${RACERS} concurrent calls, exactly one wins`, async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      const reg = records.registration(tenant.id, policy.id);
      await db.store.registrations.insert(reg);
      const outcomes = await race((i) => db.store.registrations.consume(tenant.id, reg.id, T0 + i));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
    });

    it(`a counter claim: ${RACERS} concurrent verifications with one credential from the same counter, exactly one wins`, async () => {
      const { tenant, policy, credentials } = await scene(db.store);
      const cred = credentials[0]!;
      const challenges = Array.from({ length: RACERS }, () => records.challenge(tenant.id, policy.id));
      for (const c of challenges) await db.store.challenges.insert(c);
      const outcomes = await race((i) =>
        db.store.selfContainedWrites((tx) =>
          tx.presence.settleVerified(verified(challenges[i]!, cred.id, 5 + i)),
        ),
      );
      expect(outcomes.filter((o) => o.kind === 'settled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'counter-moved')).toHaveLength(RACERS - 1);
      const winner = outcomes.findIndex((o) => o.kind === 'settled');
      expect((await db.store.credentials.get(tenant.id, cred.id))?.signCount).toBe(5 + winner);
    });

    it(`${RACERS} concurrent verify-shaped transactions: one settles and writes the only receipt`, async () => {
      const { tenant, credentials, challenge: c } = await scene(db.store);
      // Each racer with its own credential: every counter claim succeeds, the challenge decides.
      const outcomes = await race((i) =>
        db.store.transaction((tx) => tx.presence.settleVerified(verified(c, credentials[i]!.id, 5))),
      );
      expect(outcomes.filter((o) => o.kind === 'settled')).toHaveLength(1);
      expect(outcomes.filter((o) => o.kind === 'already-decided')).toHaveLength(RACERS - 1);
      const receipt = await db.store.receipts.getByChallenge(tenant.id, c.id);
      expect((await db.store.challenges.get(tenant.id, c.id))?.receiptId).toBe(receipt?.id);
      expect((await db.rows('outbox_events')).filter((r) => r.tenant_id === tenant.id)).toHaveLength(1);
      expect((await db.rows('usage_events')).filter((r) => r.tenant_id === tenant.id)).toHaveLength(1);
    });
  },
);
