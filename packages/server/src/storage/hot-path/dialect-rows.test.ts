/**
 * The hot path is written twice, as SQLite programs and as PostgreSQL statements: for the same
 * creation, verified settlement and denial, both dialects must write the same rows, column for
 * column and value for value (statements.ts, presence-hot-path.ts, challenge-creation.ts).
 */
import { describe, expect, it } from 'vitest';
import type { DeniedSettlement, VerifiedSettlement } from '../../domain/presence/ports.js';
import type { Store } from '../../domain/ports.js';
import { dialectAvailable, useTestStore } from '../each-dialect.js';
import type { Database } from '../schema.js';
import { T0, TestRecords } from '../test-records.js';
import type { TestStore } from '../testing.js';

const AT = T0 + 5_000;
const records = new TestRecords();
const tenant = records.tenant();
const policy = records.policy(tenant.id);
const registration = records.registration(tenant.id, policy.id);
const credential = records.credential(tenant.id, registration, { signCount: 5 });
const toVerify = records.challenge(tenant.id, policy.id, { createdAt: T0 });
const toDeny = records.challenge(tenant.id, policy.id, { createdAt: T0 });
const created = records.challenge(tenant.id, policy.id, { createdAt: AT });
const usage = (meter: string, sourceId: string) => ({
  id: records.id('use'),
  tenantId: tenant.id,
  meter,
  quantity: 1,
  occurredAt: AT,
  sourceId,
});
const receipt = records.receipt(toVerify, { credentialRef: credential.id, issuedAt: AT });
const verified: VerifiedSettlement = {
  credentialUse: { id: credential.id, expectedSignCount: 5, signCount: 9, backedUp: true },
  usedAt: AT,
  receipt,
  usage: usage('presence.verified', toVerify.id),
  event: {
    id: records.id('evt'),
    tenantId: tenant.id,
    type: 'receipt.created',
    payload: { receiptId: receipt.id },
    createdAt: AT,
  },
};
const denied: DeniedSettlement = {
  tenantId: tenant.id,
  challengeId: toDeny.id,
  settlement: {
    status: 'denied',
    usedAt: AT,
    decision: 'SIGNATURE_INVALID',
    reason: 'bad signature',
    receiptId: null,
    credentialRef: credential.id,
  },
  usage: usage('presence.denied', toDeny.id),
  event: {
    id: records.id('evt'),
    tenantId: tenant.id,
    type: 'presence.denied',
    payload: { challengeId: toDeny.id },
    createdAt: AT,
  },
};
const creation = { challenge: created, usage: usage('challenges.created', created.id) };

/** The same records, the same calls: what a verification, a denial and a creation write. */
async function play(store: Store): Promise<void> {
  await store.tenants.insert(tenant);
  await store.policies.insert(policy);
  await store.registrations.insert(registration);
  await store.credentials.insert(credential);
  await store.challenges.insert(toVerify);
  await store.challenges.insert(toDeny);
  await store.transaction((tx) =>
    tx.presence.createChallenge({ ...creation, quota: { periodStart: T0, limit: null } }),
  );
  expect(await store.selfContainedWrites((tx) => tx.presence.settleVerified(verified))).toEqual({
    kind: 'settled',
    seq: 1,
  });
  expect(await store.selfContainedWrites((tx) => tx.presence.settleDenied(denied))).toBe('settled');
}

const HOT_TABLES: (keyof Database)[] = [
  'challenges',
  'credentials',
  'receipts',
  'outbox_events',
  'usage_events',
  'usage_rollups',
  'tenant_counters',
  'quota_counters',
];

/** The tenant's rows of a table, in one order, with numbers as numbers (pg gives int8 as text). */
async function rowsOf(db: TestStore, table: keyof Database): Promise<Record<string, unknown>[]> {
  const rows = (await db.rows(table)) as Record<string, unknown>[];
  return rows
    .filter((row) => row['tenant_id'] === tenant.id)
    .map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([k, v]) => [
          k,
          typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'id' ? Number(v) : v,
        ]),
      ),
    )
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

describe.skipIf(!dialectAvailable('postgres'))('the hot path on SQLite and on PostgreSQL', () => {
  const sqlite = useTestStore('sqlite');
  const postgres = useTestStore('postgres');

  it('writes identical rows for the same creation, settlement and denial', async () => {
    await play(sqlite.store);
    await play(postgres.store);
    for (const table of HOT_TABLES) {
      const onSqlite = await rowsOf(sqlite, table);
      expect(onSqlite.length, table).toBeGreaterThan(0);
      expect({ table, rows: await rowsOf(postgres, table) }).toEqual({ table, rows: onSqlite });
    }
  });
});
