/**
 * The hot path is written twice, as SQLite programs and as PostgreSQL statements, and the general
 * repos a third time: for the same creation, verified settlement, denial, burst of settlements
 * (PostgreSQL's batch statement) and usage count, both dialects must write the same rows, column
 * for column and value for value (statements.ts, presence-hot-path.ts, challenge-creation.ts).
 * And each written row is the one its table module (storage/tables/) makes of the record.
 */
import { describe, expect, it } from 'vitest';
import type { ChallengeRecord, SettleOutcome } from '../../domain/presence/ports.js';
import type { CredentialRecord } from '../../domain/credentials/ports.js';
import type { Store } from '../../domain/ports.js';
import { dialectAvailable, useTestStore } from '../each-dialect.js';
import type { Database } from '../schema.js';
import { toChallengeRow, verifiedSettlement } from '../tables/challenges.js';
import { toCredentialRow } from '../tables/credentials.js';
import { toUsageEventRow } from '../tables/usage-events.js';
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

const verified = (challenge: ChallengeRecord, by: CredentialRecord, at: number, expected = 5) =>
  records.verified(challenge, { id: by.id, expectedSignCount: expected, signCount: 9, backedUp: true }, at);

const settled = verified(toVerify, credential, AT);
const denied = records.denied(toDeny, AT, { credentialRef: credential.id });
const creation = { challenge: created, usage: records.usage(created, 'challenges.created', AT) };

/**
 * A burst of verifications at once, each with its own credential: on PostgreSQL the first runs
 * alone and the rest arrive while it is in flight, so they go in one batch statement. Two settle,
 * one has a stale counter, one comes for the challenge denied before (its counter stays claimed).
 */
const crowd = Array.from({ length: 4 }, () => ({
  credential: records.credential(tenant.id, registration, { signCount: 5 }),
  challenge: records.challenge(tenant.id, policy.id, { createdAt: T0 }),
}));
const BURST_AT = AT + 3_600_000; // the next hour: rollups of their own
const burst = [
  verified(crowd[0]!.challenge, crowd[0]!.credential, BURST_AT),
  verified(crowd[1]!.challenge, crowd[1]!.credential, BURST_AT + 1),
  verified(crowd[2]!.challenge, crowd[2]!.credential, BURST_AT + 2, 4),
  verified(toDeny, crowd[3]!.credential, BURST_AT + 3),
];
/** A usage counted through the general repo (domain/usage/record-usage.ts), not the hot path. */
const delivered = records.usage({ id: 'whd_1', tenantId: tenant.id }, 'webhooks.delivered', BURST_AT);

/** The same records, the same calls: what a verification, a denial, a creation and a burst write. */
async function play(store: Store): Promise<SettleOutcome[]> {
  await store.tenants.insert(tenant);
  await store.policies.insert(policy);
  await store.registrations.insert(registration);
  for (const c of [credential, ...crowd.map((m) => m.credential)]) await store.credentials.insert(c);
  for (const c of [toVerify, toDeny, ...crowd.map((m) => m.challenge)]) await store.challenges.insert(c);
  await store.transaction((tx) =>
    tx.presence.createChallenge({ ...creation, quota: { periodStart: T0, limit: null } }),
  );
  expect(await store.selfContainedWrites((tx) => tx.presence.settleVerified(settled))).toEqual({
    kind: 'settled',
    seq: 1,
  });
  expect(await store.selfContainedWrites((tx) => tx.presence.settleDenied(denied))).toBe('settled');
  const outcomes = await Promise.all(
    burst.map((s) => store.selfContainedWrites((tx) => tx.presence.settleVerified(s))),
  );
  await store.transaction((tx) => tx.usage.insert(delivered));
  return outcomes;
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

/** Numbers as numbers (pg gives int8 as text), ids untouched. */
function numeric(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === 'string' && /^-?\d+$/.test(v) && k !== 'id' ? Number(v) : v,
    ]),
  );
}

/** The tenant's rows of a table, in one order. */
async function rowsOf(db: TestStore, table: keyof Database): Promise<Record<string, unknown>[]> {
  const rows = (await db.rows(table)) as Record<string, unknown>[];
  return rows
    .filter((row) => row['tenant_id'] === tenant.id)
    .map(numeric)
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** What the table modules make of the records, as the settlements leave them. */
function expectedRows() {
  const won = [settled, burst[0]!, burst[1]!];
  const used = [settled, ...burst.filter((_, i) => i !== 2)];
  return {
    challenges: [
      toChallengeRow({ ...created }),
      toChallengeRow({ ...toDeny, ...denied.settlement }),
      toChallengeRow(crowd[2]!.challenge),
      toChallengeRow(crowd[3]!.challenge),
      ...won.map((s) =>
        toChallengeRow({
          ...[toVerify, ...crowd.map((m) => m.challenge)].find((c) => c.id === s.receipt.challengeId)!,
          ...verifiedSettlement(s.usedAt, s.receipt.id, s.credentialUse.id),
        }),
      ),
    ],
    credentials: [
      toCredentialRow(crowd[2]!.credential),
      ...used.map((s) =>
        toCredentialRow({
          ...[credential, ...crowd.map((m) => m.credential)].find((c) => c.id === s.credentialUse.id)!,
          signCount: 9,
          backedUp: true,
          lastUsedAt: s.usedAt,
        }),
      ),
    ],
    usage_events: [
      creation.usage,
      settled.usage,
      denied.usage,
      burst[0]!.usage,
      burst[1]!.usage,
      delivered,
    ].map(toUsageEventRow),
  };
}

describe.skipIf(!dialectAvailable('postgres'))('the hot path on SQLite and on PostgreSQL', () => {
  const sqlite = useTestStore('sqlite');
  const batches: number[] = [];
  const postgres = useTestStore('postgres', { onSettleBatch: (members) => batches.push(members) });

  it('writes identical rows for the same creation, settlement, denial, burst and usage', async () => {
    const outcomes = await play(sqlite.store);
    expect(outcomes.map((o) => o.kind)).toEqual(['settled', 'settled', 'counter-moved', 'already-decided']);
    expect(await play(postgres.store)).toEqual(outcomes);
    expect(Math.max(...batches)).toBeGreaterThan(1); // PostgreSQL's batch statement ran
    for (const table of HOT_TABLES) {
      const onSqlite = await rowsOf(sqlite, table);
      expect(onSqlite.length, table).toBeGreaterThan(0);
      expect({ table, rows: await rowsOf(postgres, table) }).toEqual({ table, rows: onSqlite });
    }
    // And they are the rows the table modules make of the records, as the writes left them.
    const byId = (rows: readonly object[]) =>
      rows
        .map((r) => numeric(r as Record<string, unknown>))
        .sort((a, b) => String(a['id']).localeCompare(String(b['id'])));
    for (const [table, rows] of Object.entries(expectedRows())) {
      const stored = await rowsOf(sqlite, table as keyof Database);
      expect({ table, rows: byId(stored) }).toEqual({ table, rows: byId(rows) });
    }
  });
});
