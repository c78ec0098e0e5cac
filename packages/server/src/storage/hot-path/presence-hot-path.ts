/**
 * The verify hot path (domain/presence/ports.ts PresenceHotPath) for both dialects, over the
 * compiled texts of statements.ts: no query builder per request. SQLite runs each write set as a
 * program of a few cached statements (sqlite-program.js): on the writer thread, or inside the
 * caller's transaction; PostgreSQL as one named prepared statement. Outside a transaction, SQLite's
 * two reads also run on the writer thread (HotPathLanes.sqliteReads).
 */
import type { Kysely } from 'kysely';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { OutboxEventRecord } from '../../domain/events/ports.js';
import type {
  DeniedSettlement,
  PresenceHotPath,
  SettleOutcome,
  VerifiedSettlement,
} from '../../domain/presence/ports.js';
import type { Dialect } from '../open-database.js';
import type { ChallengesTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { currentTraceParent } from '../repos/outbox.js';
import { parseJson, toFlag } from '../repos/rows.js';
import { settleChallengeValues, toChallenge, verifiedSettlement } from '../tables/challenges.js';
import { claimCounterValues, toCredentialInUse } from '../tables/credentials.js';
import { rollupBuckets as buckets } from '../tables/usage-rollups.js';
import { createChallengeWrites } from './challenge-creation.js';
import type { PgSettleLanes } from './pg-settle-lanes.js';
import {
  KEPT,
  PERIOD_CLOSED,
  pgUnlessPeriodClosed,
  programOn,
  runner,
  sqliteStep,
  sqliteUsageSteps,
  type Run,
  type RunProgram,
} from './run-statement.js';
import * as S from './statements.js';
import { outboxEventValues } from '../tables/outbox-events.js';
import { receiptValues } from '../tables/receipts.js';

/** Where the hot path's writes go from a handle outside a transaction; unset: on the handle. */
export interface HotPathLanes {
  /** PostgreSQL: verified settles in per-tenant batches (pg-settle-lanes.ts). */
  pgSettles?: PgSettleLanes | undefined;
  /** SQLite: every write set on the writer thread (storage/sqlite-writer.ts). */
  sqliteWriter?: { run: RunProgram } | undefined;
  /** SQLite: the hot path's reads on the writer thread's connection, whose page cache stays warm. */
  sqliteReads?: { read: RunProgram } | undefined;
  /**
   * The outer store's transaction guard (transaction.ts): the hot path's statements are compiled
   * texts, which Kysely's plugins never see, so each call checks it here.
   */
  assertOutside?: (() => void) | undefined;
}

export function createPresenceHotPath(
  db: Kysely<Database>,
  dialect: Dialect,
  lanes: HotPathLanes = {},
): PresenceHotPath {
  const run = runner(db, dialect);
  const writer = lanes.sqliteWriter;
  const program: RunProgram = writer ? (p) => writer.run(p) : programOn(db);
  const reader = lanes.sqliteReads;
  const read: Run = reader
    ? async <R>(text: string, values: readonly unknown[]) => {
        const result = await reader.read({ steps: [sqliteStep(text, values, { returns: true })] });
        return { rows: result.rows as R[], changed: 0 };
      }
    : run;
  const outside = lanes.assertOutside ?? (() => undefined);
  return {
    async allowedCredentials(tenantId, subject, limit) {
      outside();
      const { rows } = await read<{ credential_id: string; transports: string }>(S.ALLOWED_CREDENTIALS, [
        tenantId,
        subject,
        limit,
      ]);
      return rows.map((r) => ({
        credentialId: r.credential_id,
        transports: parseJson<string[]>(r.transports),
      }));
    },
    async readForVerify(tenantId, challengeId, credentialId) {
      outside();
      const { rows } = await read<Record<string, unknown>>(S.READ_FOR_VERIFY, [
        tenantId,
        challengeId,
        credentialId,
      ]);
      const row = rows[0];
      if (row === undefined) return undefined;
      return { challenge: toChallenge(row as ChallengesTable), credential: credentialOf(row) };
    },
    settleVerified: (s) =>
      mapUniqueViolation(async () => {
        outside();
        if (dialect === 'sqlite') return sqliteVerified(program, s);
        if (lanes.pgSettles) return lanes.pgSettles.settle(s);
        return (await pgVerified(run, [{ settlement: s, traceParent: currentTraceParent() }]))[0]!;
      }),
    settleDenied: (s) =>
      mapUniqueViolation(async () => {
        outside();
        return dialect === 'postgres' ? pgDenied(run, s) : sqliteDenied(program, s);
      }),
    createChallenge: (c) =>
      mapUniqueViolation(async () => {
        outside();
        return createChallengeWrites(run, program, dialect, c);
      }),
  };
}

function credentialOf(row: Record<string, unknown>) {
  if (row.cr_id === null || row.cr_id === undefined) return undefined;
  const columns: Record<string, unknown> = {};
  for (const [column, alias] of S.CREDENTIAL_ALIASES) columns[column] = row[alias];
  return toCredentialInUse(columns as Parameters<typeof toCredentialInUse>[0]);
}

function eventValues(e: OutboxEventRecord) {
  return outboxEventValues(e, currentTraceParent());
}

/** A verified settlement on its way to PostgreSQL, with the trace its event continues. */
export interface PgVerifiedMember {
  settlement: VerifiedSettlement;
  traceParent: string | null;
}

/**
 * PostgreSQL: settles one or more verifications of ONE tenant in one statement (statements.ts
 * PG_SETTLE_VERIFIED, or PG_SETTLE_ONE_VERIFIED for one alone); the batch holds each credential
 * and each challenge at most once
 * (pg-settle-lanes.ts). One outcome per member, in order. A sealed month fails the whole batch with
 * BillingPeriodClosed (of the first member's time) and writes nothing.
 */
export async function pgVerified(run: Run, members: readonly PgVerifiedMember[]): Promise<SettleOutcome[]> {
  if (members.length === 1) return [await pgVerifiedOne(run, members[0]!)];
  const column = <T>(pick: (m: PgVerifiedMember) => T) => members.map(pick);
  const s0 = members[0]!.settlement;
  const bucketsOf = members.map((m) => buckets(m.settlement.usage.occurredAt));
  const { rows } = await pgUnlessPeriodClosed(s0.usage.occurredAt, () =>
    run<{ claimed: string[]; settled: string[]; receipts: [string, number][] }>(S.PG_SETTLE_VERIFIED, [
      s0.receipt.tenantId,
      column((m) => m.settlement.credentialUse.id),
      column((m) => m.settlement.credentialUse.expectedSignCount),
      column((m) => m.settlement.credentialUse.signCount),
      column((m) => toFlag(m.settlement.credentialUse.backedUp)),
      column((m) => m.settlement.usedAt),
      column((m) => m.settlement.receipt.id),
      column((m) => m.settlement.receipt.challengeId),
      column((m) => m.settlement.event.id),
      column((m) => JSON.stringify(m.settlement.event.payload ?? null)),
      column((m) => m.traceParent),
      column((m) => m.settlement.usage.id),
      bucketsOf.map((b) => b[0]),
      bucketsOf.map((b) => b[1]),
      bucketsOf.map((b) => b[2]),
      column((m) => m.settlement.receipt.subject),
      column((m) => m.settlement.receipt.actionHashHex),
      column((m) => m.settlement.receipt.issuedAt),
      column((m) => m.settlement.receipt.canonicalJson),
      column((m) => m.settlement.receipt.hashHex),
      column((m) => m.settlement.receipt.kid),
      column((m) => m.settlement.receipt.signatureB64Url),
      column((m) => m.settlement.event.type),
      column((m) => m.settlement.usage.meter),
    ]),
  );
  const row = rows[0]!;
  const claimed = new Set(row.claimed);
  const settled = new Set(row.settled);
  const seqs = new Map(row.receipts.map(([challengeId, seq]) => [challengeId, Number(seq)]));
  return members.map(({ settlement: s }): SettleOutcome => {
    if (!claimed.has(s.credentialUse.id)) return { kind: 'counter-moved' };
    if (!settled.has(s.receipt.challengeId)) return { kind: 'already-decided' };
    const seq = seqs.get(s.receipt.challengeId);
    if (seq === undefined) throw new Error('a settled challenge has no receipt in its batch');
    return { kind: 'settled', seq };
  });
}

/** PostgreSQL: one settlement alone, in the statement made for one (cheaper than a batch of one). */
async function pgVerifiedOne(
  run: Run,
  { settlement: s, traceParent }: PgVerifiedMember,
): Promise<SettleOutcome> {
  const { credentialUse: use, receipt: r } = s;
  const { rows } = await pgUnlessPeriodClosed(s.usage.occurredAt, () =>
    run<{ claimed: number; settled: number; seq: number | null }>(S.PG_SETTLE_ONE_VERIFIED, [
      ...claimCounterValues(use, s.usedAt), // $1..$5: the statement's first CTE is CLAIM_COUNTER
      r.id,
      r.tenantId,
      r.challengeId,
      s.event.id,
      JSON.stringify(s.event.payload ?? null),
      s.usage.id,
      ...buckets(s.usage.occurredAt),
      r.subject,
      r.actionHashHex,
      r.issuedAt,
      r.canonicalJson,
      r.hashHex,
      r.kid,
      r.signatureB64Url,
      traceParent,
      s.event.type,
      s.usage.meter,
    ]),
  );
  const row = rows[0]!;
  if (row.claimed === 0) return { kind: 'counter-moved' };
  if (row.settled === 0) return { kind: 'already-decided' };
  return { kind: 'settled', seq: Number(row.seq) };
}

/**
 * SQLite: the counter's compare-and-set, then the challenge's, then the event, the usage and, last,
 * the tenant's receipt sequence and the receipt. A lost compare-and-set stops there (the counter
 * stays claimed when only the challenge was lost, as in PostgreSQL's statement).
 */
async function sqliteVerified(program: RunProgram, s: VerifiedSettlement): Promise<SettleOutcome> {
  const { credentialUse: use, receipt: r } = s;
  const result = await program({
    steps: [
      sqliteStep(S.CLAIM_COUNTER, claimCounterValues(use, s.usedAt), {
        expect: 'changed',
        otherwise: { outcome: 'counter-moved', undo: false },
      }),
      sqliteStep(
        S.SETTLE_CHALLENGE,
        settleChallengeValues(r.tenantId, r.challengeId, verifiedSettlement(s.usedAt, r.id, use.id)),
        {
          expect: 'changed',
          otherwise: { outcome: 'already-decided', undo: false },
        },
      ),
      sqliteStep(S.INSERT_EVENT, eventValues(s.event)),
      ...sqliteUsageSteps(s.usage),
      // Last: the tenant's receipt sequence (SQLite serializes writers anyway; same order as PostgreSQL).
      sqliteStep(S.NEXT_RECEIPT_SEQ, [r.tenantId], { keep: 'value' }),
      sqliteStep(S.INSERT_RECEIPT, receiptValues(r, KEPT)),
    ],
  });
  if (result.outcome === 'counter-moved') return { kind: 'counter-moved' };
  if (result.outcome === 'already-decided') return { kind: 'already-decided' };
  if (result.outcome === PERIOD_CLOSED) throw new BillingPeriodClosed(s.usage.occurredAt);
  return { kind: 'settled', seq: Number(result.kept) };
}

async function pgDenied(run: Run, s: DeniedSettlement): Promise<'settled' | 'already-decided'> {
  const d = s.settlement;
  const { rows } = await pgUnlessPeriodClosed(s.usage.occurredAt, () =>
    run<{ settled: number; rollups: number }>(S.PG_SETTLE_DENIED, [
      d.status,
      d.usedAt,
      d.decision,
      d.reason,
      d.credentialRef,
      s.tenantId,
      s.challengeId,
      s.event.id,
      JSON.stringify(s.event.payload ?? null),
      s.usage.id,
      ...buckets(s.usage.occurredAt),
      currentTraceParent(),
      s.event.type,
      s.usage.meter,
    ]),
  );
  const row = rows[0]!;
  if (row.settled === 0) return 'already-decided';
  if (row.rollups !== 3) throw new BillingPeriodClosed(s.usage.occurredAt);
  return 'settled';
}

async function sqliteDenied(
  program: RunProgram,
  s: DeniedSettlement,
): Promise<'settled' | 'already-decided'> {
  const d = s.settlement;
  const result = await program({
    steps: [
      sqliteStep(
        S.SETTLE_CHALLENGE,
        settleChallengeValues(s.tenantId, s.challengeId, { ...d, receiptId: null }),
        {
          expect: 'changed',
          otherwise: { outcome: 'already-decided', undo: false },
        },
      ),
      sqliteStep(S.INSERT_EVENT, eventValues(s.event)),
      ...sqliteUsageSteps(s.usage),
    ],
  });
  if (result.outcome === 'already-decided') return 'already-decided';
  if (result.outcome === PERIOD_CLOSED) throw new BillingPeriodClosed(s.usage.occurredAt);
  return 'settled';
}
