/**
 * The receipt log's seq (migration 0002), on both dialects: per tenant, gap-free, handed out in
 * commit order, and the backfill of receipts that existed before the migration.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, useTestStore } from './each-dialect.js';
import type { Store } from '../domain/ports.js';
import type { TenantRecord } from '../domain/tenants/ports.js';
import type { PolicyRecord } from '../domain/policy/ports.js';
import * as postgresCore from './migrations/postgres/0001-core.js';
import * as postgresEvidence from './migrations/postgres/0002-evidence.js';
import * as sqliteCore from './migrations/sqlite/0001-core.js';
import * as sqliteEvidence from './migrations/sqlite/0002-evidence.js';
import { openDatabase } from './open-database.js';
import { createStore } from './open-store.js';
import { seedTenant, T0, TestRecords } from './test-records.js';
import { dropTestSchema, testDatabaseUrl } from './testing.js';

describeEachDialect(
  (dialect) => `store behaviour: receipt log (${dialect})`,
  (dialect) => {
    const db = useTestStore(dialect);
    const records = new TestRecords();

    function receiptFor(tenant: TenantRecord, policy: PolicyRecord, issuedAt = T0) {
      const challenge = records.challenge(tenant.id, policy.id);
      return { challenge, receipt: records.receipt(challenge, { issuedAt }) };
    }

    async function insertOne(store: Store, tenant: TenantRecord, policy: PolicyRecord): Promise<number> {
      const { challenge, receipt } = receiptFor(tenant, policy);
      return store.transaction(async (tx) => {
        await tx.challenges.insert(challenge);
        return tx.receipts.insert(receipt);
      });
    }

    it('numbers each tenant’s receipts 1, 2, 3… independently', async () => {
      const a = await seedTenant(db.store, records);
      const b = await seedTenant(db.store, records);
      expect(await db.store.receiptLog.lastSeq(a.tenant.id)).toBe(0);
      expect(await insertOne(db.store, a.tenant, a.policy)).toBe(1);
      expect(await insertOne(db.store, a.tenant, a.policy)).toBe(2);
      expect(await insertOne(db.store, b.tenant, b.policy)).toBe(1);
      expect(await insertOne(db.store, a.tenant, a.policy)).toBe(3);
      expect(await db.store.receiptLog.lastSeq(a.tenant.id)).toBe(3);
    });

    it('a rolled-back receipt leaves no gap', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      await insertOne(db.store, tenant, policy);
      const failed = db.store.transaction(async (tx) => {
        const { challenge, receipt } = receiptFor(tenant, policy);
        await tx.challenges.insert(challenge);
        await tx.receipts.insert(receipt);
        throw new Error('the rest of the transaction failed');
      });
      await expect(failed).rejects.toThrow('the rest of the transaction failed');
      expect(await insertOne(db.store, tenant, policy)).toBe(2);
    });

    it('hands out seq in commit order: a second writer waits for the first to commit', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let firstSeq = 0;
      const first = db.store.transaction(async (tx) => {
        const { challenge, receipt } = receiptFor(tenant, policy);
        await tx.challenges.insert(challenge);
        firstSeq = await tx.receipts.insert(receipt);
        await held;
      });
      while (firstSeq === 0) await new Promise((r) => setTimeout(r, 5));
      let secondDone = false;
      const second = insertOne(db.store, tenant, policy).then((seq) => {
        secondDone = true;
        return seq;
      });
      await new Promise((r) => setTimeout(r, 200));
      expect(secondDone).toBe(false);
      release();
      await first;
      expect(await second).toBe(firstSeq + 1);
    });

    it('seqWindow and list: time range, filters and both orders', async () => {
      const { tenant, policy } = await seedTenant(db.store, records);
      for (let i = 0; i < 6; i++) {
        const { challenge, receipt } = receiptFor(tenant, policy, T0 + i * 1000);
        await db.store.transaction(async (tx) => {
          await tx.challenges.insert(challenge);
          await tx.receipts.insert({ ...receipt, subject: i % 2 === 0 ? 'even' : 'odd' });
        });
      }
      expect(await db.store.receiptLog.seqWindow(tenant.id, { from: T0 + 1000, to: T0 + 4000 })).toEqual({
        low: 2,
        high: 4,
      });
      expect(await db.store.receiptLog.seqWindow(tenant.id, { from: T0 + 9000 })).toBeUndefined();
      const seqs = async (
        order: 'asc' | 'desc',
        after: number | null,
        stop: number | null,
        subject?: string,
      ) =>
        (await db.store.receiptLog.list(tenant.id, { subject }, { order, after, stop }, 10)).map(
          (r) => r.seq,
        );
      expect(await seqs('asc', null, null)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await seqs('asc', 2, 5)).toEqual([3, 4, 5]);
      expect(await seqs('desc', 5, 2)).toEqual([4, 3, 2]);
      expect(await seqs('desc', null, null, 'odd')).toEqual([6, 4, 2]);
      // listLeaves: the same page as list, seq and id only, for every position and filter above.
      for (const [order, after, stop, subject] of [
        ['asc', null, null, undefined],
        ['asc', 2, 5, undefined],
        ['desc', 5, 2, undefined],
        ['desc', null, null, 'odd'],
      ] as const) {
        const position = { order, after, stop };
        const full = await db.store.receiptLog.list(tenant.id, { subject }, position, 10);
        expect(await db.store.receiptLog.listLeaves(tenant.id, { subject }, position, 10)).toEqual(
          full.map((r) => ({ seq: r.seq, receiptId: r.receipt.id })),
        );
      }
      const [first] = await db.store.receiptLog.list(
        tenant.id,
        {},
        { order: 'asc', after: null, stop: 1 },
        1,
      );
      expect(first?.challenge.id).toBe(first?.receipt.challengeId);
    });
  },
);

const CORE = { sqlite: sqliteCore, postgres: postgresCore };
const EVIDENCE = { sqlite: sqliteEvidence, postgres: postgresEvidence };

describeEachDialect(
  (dialect) => `migration 0002 (${dialect})`,
  (dialect) => {
    let dir: string;
    const schema = `test_${randomBytes(8).toString('hex')}`;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'presence-0002-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
      if (dialect === 'postgres') await dropTestSchema(schema);
    });

    it('numbers existing receipts in (issued_at, id) order per tenant and continues the counter', async () => {
      const handle = await openDatabase(
        dialect === 'sqlite'
          ? { sqlitePath: join(dir, 'db.sqlite') }
          : { databaseUrl: testDatabaseUrl(), sqlitePath: '', pgSchema: schema, pgPoolSize: 2 },
      );
      await CORE[dialect].up(handle.db);
      const records = new TestRecords();
      const store = createStore(handle);
      const a = await seedTenant(store, records);
      const b = await seedTenant(store, records);
      const ids: string[] = [];
      for (const at of [T0 + 3000, T0 + 1000, T0 + 2000]) {
        const c = records.challenge(a.tenant.id, a.policy.id);
        await store.challenges.insert(c);
        const r = records.receipt(c, { issuedAt: at });
        ids.push(r.id);
        await sql`insert into receipts (id, tenant_id, challenge_id, credential_ref, subject, action_hash_hex, issued_at, canonical_json, hash_hex, kid, signature_b64url)
          values (${r.id}, ${r.tenantId}, ${r.challengeId}, ${r.credentialRef}, ${r.subject}, ${r.actionHashHex}, ${r.issuedAt}, ${r.canonicalJson}, ${r.hashHex}, ${r.kid}, ${r.signatureB64Url})`.execute(
          handle.db,
        );
      }
      await EVIDENCE[dialect].up(handle.db);
      const rows = await handle.db.selectFrom('receipts').select(['id', 'seq']).orderBy('seq').execute();
      expect(rows).toEqual([
        { id: ids[1], seq: 1 },
        { id: ids[2], seq: 2 },
        { id: ids[0], seq: 3 },
      ]);
      const c = records.challenge(a.tenant.id, a.policy.id);
      await store.challenges.insert(c);
      expect(await store.transaction((tx) => tx.receipts.insert(records.receipt(c)))).toBe(4);
      expect(await store.receiptLog.lastSeq(b.tenant.id)).toBe(0);
      await handle.db.destroy();
    });
  },
);
