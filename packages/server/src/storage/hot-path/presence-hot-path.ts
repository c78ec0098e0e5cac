/**
 * The verify hot path (domain/presence/ports.ts PresenceHotPath) for both dialects, over the
 * compiled texts of statements.ts: no query builder per request. SQLite runs the write set as a
 * few cached statements inside the caller's BEGIN IMMEDIATE (no round trips there); PostgreSQL as
 * one named prepared statement (one round trip between BEGIN and COMMIT).
 */
import { CompiledQuery, type Kysely } from 'kysely';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import { bucketStart } from '../../domain/billing/billing-period.js';
import type { OutboxEventRecord } from '../../domain/events/ports.js';
import type { QuotaCounter } from '../../domain/billing/ports.js';
import type {
  ChallengeCreation,
  DeniedSettlement,
  PresenceHotPath,
  SettleOutcome,
  VerifiedSettlement,
} from '../../domain/presence/ports.js';
import type { UsageEventRecord } from '../../domain/usage/ports.js';
import type { ChallengesTable, CredentialsTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { toChallenge } from '../repos/challenges.js';
import { toCredential } from '../repos/credentials.js';
import { toFlag } from '../repos/rows.js';
import * as S from './statements.js';

type Dialect = 'sqlite' | 'postgres';
type Run = <R>(text: string, values: readonly unknown[]) => Promise<{ rows: R[]; changed: number }>;

export function createPresenceHotPath(db: Kysely<Database>, dialect: Dialect): PresenceHotPath {
  const run = runner(db, dialect);
  return {
    async readForVerify(tenantId, challengeId, credentialId) {
      const { rows } = await run<Record<string, unknown>>(S.READ_FOR_VERIFY, [
        tenantId,
        challengeId,
        credentialId,
      ]);
      const row = rows[0];
      if (row === undefined) return undefined;
      return { challenge: toChallenge(row as ChallengesTable), credential: credentialOf(row) };
    },
    settleVerified: (s) =>
      mapUniqueViolation(() => (dialect === 'postgres' ? pgVerified(run, s) : sqliteVerified(run, s))),
    settleDenied: (s) =>
      mapUniqueViolation(() => (dialect === 'postgres' ? pgDenied(run, s) : sqliteDenied(run, s))),
    createChallenge: (c) =>
      mapUniqueViolation(() => (dialect === 'postgres' ? pgCreate(run, c) : sqliteCreate(run, c))),
  };
}

/** Compiled once per text: SQLite's statement cache and PostgreSQL's named statements key on it. */
function runner(db: Kysely<Database>, dialect: Dialect): Run {
  const sqlite = new Map<string, ReturnType<typeof S.forSqlite>>();
  return async <R>(text: string, values: readonly unknown[]) => {
    let query = text;
    let parameters = values;
    if (dialect === 'sqlite') {
      let converted = sqlite.get(text);
      if (converted === undefined) sqlite.set(text, (converted = S.forSqlite(text)));
      query = converted.text;
      parameters = converted.order(values);
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(query, [...parameters]));
    return { rows: result.rows, changed: Number(result.numAffectedRows ?? 0n) };
  };
}

function credentialOf(row: Record<string, unknown>) {
  if (row.cr_id === null || row.cr_id === undefined) return undefined;
  const credential: Record<string, unknown> = {};
  for (const [column, alias] of S.CREDENTIAL_ALIASES) credential[column] = row[alias];
  return toCredential(credential as CredentialsTable);
}

function buckets(at: number): [number, number, number] {
  return [bucketStart('month', at), bucketStart('day', at), bucketStart('hour', at)];
}

function eventValues(e: OutboxEventRecord) {
  return [e.id, e.tenantId, e.type, JSON.stringify(e.payload ?? null), e.createdAt];
}

function usageValues(u: UsageEventRecord) {
  return [u.id, u.tenantId, u.meter, u.quantity, u.occurredAt, u.sourceId];
}

async function pgVerified(run: Run, s: VerifiedSettlement): Promise<SettleOutcome> {
  const { credentialUse: use, receipt: r } = s;
  const { rows } = await run<{ claimed: number; settled: number; rollups: number; seq: number | null }>(
    S.PG_SETTLE_VERIFIED,
    [
      use.signCount,
      toFlag(use.backedUp),
      s.usedAt,
      use.id,
      use.expectedSignCount,
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
    ],
  );
  const row = rows[0]!;
  if (row.claimed === 0) return { kind: 'counter-moved' };
  if (row.settled === 0) return { kind: 'already-decided' };
  if (row.rollups !== 3) throw new BillingPeriodClosed(s.usage.occurredAt);
  return { kind: 'settled', seq: Number(row.seq) };
}

async function sqliteVerified(run: Run, s: VerifiedSettlement): Promise<SettleOutcome> {
  const { credentialUse: use, receipt: r } = s;
  const claimed = await run(S.CLAIM_COUNTER, [
    use.signCount,
    toFlag(use.backedUp),
    s.usedAt,
    use.id,
    use.expectedSignCount,
  ]);
  if (claimed.changed === 0) return { kind: 'counter-moved' };
  const settled = await run(S.SETTLE_CHALLENGE, [
    'verified',
    s.usedAt,
    'PRESENCE_VERIFIED',
    null,
    r.id,
    use.id,
    r.tenantId,
    r.challengeId,
  ]);
  if (settled.changed === 0) return { kind: 'already-decided' };
  await run(S.INSERT_EVENT, eventValues(s.event));
  await sqliteUsage(run, s.usage);
  // Last: the tenant's receipt sequence (SQLite serializes writers anyway; same order as PostgreSQL).
  const seq = Number((await run<{ value: number }>(S.NEXT_RECEIPT_SEQ, [r.tenantId])).rows[0]!.value);
  await run(S.INSERT_RECEIPT, [
    r.id,
    r.tenantId,
    r.challengeId,
    r.credentialRef,
    r.subject,
    r.actionHashHex,
    r.issuedAt,
    r.canonicalJson,
    r.hashHex,
    r.kid,
    r.signatureB64Url,
    seq,
  ]);
  return { kind: 'settled', seq };
}

async function sqliteUsage(run: Run, u: UsageEventRecord): Promise<void> {
  await run(S.INSERT_USAGE, usageValues(u));
  const counted = await run(S.ADD_TO_ROLLUPS, [u.tenantId, u.meter, u.quantity, ...buckets(u.occurredAt)]);
  if (counted.rows.length !== 3) throw new BillingPeriodClosed(u.occurredAt);
}

async function pgDenied(run: Run, s: DeniedSettlement): Promise<'settled' | 'already-decided'> {
  const d = s.settlement;
  const { rows } = await run<{ settled: number; rollups: number }>(S.PG_SETTLE_DENIED, [
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
  ]);
  const row = rows[0]!;
  if (row.settled === 0) return 'already-decided';
  if (row.rollups !== 3) throw new BillingPeriodClosed(s.usage.occurredAt);
  return 'settled';
}

async function sqliteDenied(run: Run, s: DeniedSettlement): Promise<'settled' | 'already-decided'> {
  const d = s.settlement;
  const settled = await run(S.SETTLE_CHALLENGE, [
    d.status,
    d.usedAt,
    d.decision,
    d.reason,
    null,
    d.credentialRef,
    s.tenantId,
    s.challengeId,
  ]);
  if (settled.changed === 0) return 'already-decided';
  await run(S.INSERT_EVENT, eventValues(s.event));
  await sqliteUsage(run, s.usage);
  return 'settled';
}

interface QuotaRow {
  used: number;
  threshold_80_at: number | null;
  threshold_100_at: number | null;
}

function toCounter(row: QuotaRow): QuotaCounter {
  return {
    used: Number(row.used),
    threshold80At: row.threshold_80_at === null ? null : Number(row.threshold_80_at),
    threshold100At: row.threshold_100_at === null ? null : Number(row.threshold_100_at),
  };
}

function challengeValues({ challenge: c }: ChallengeCreation) {
  return [
    c.id,
    c.tenantId,
    c.actionHashHex,
    c.subject,
    c.purpose,
    c.nonceB64Url,
    c.challengeB64Url,
    JSON.stringify(c.allowCredentialIds),
    c.policyId,
    c.createdAt,
    c.expiresAt,
  ];
}

async function pgCreate(run: Run, c: ChallengeCreation): Promise<QuotaCounter | undefined> {
  if (c.quota.limit !== null && c.quota.limit <= 0) return undefined;
  const [id, tenantId, ...rest] = challengeValues(c);
  const { rows } = await run<QuotaRow & { rollups: number }>(S.PG_CREATE_CHALLENGE, [
    tenantId,
    c.quota.periodStart,
    c.quota.limit,
    id,
    ...rest.slice(0, 8),
    rest[8],
    c.usage.id,
    ...buckets(c.usage.occurredAt),
  ]);
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.rollups !== 3) throw new BillingPeriodClosed(c.usage.occurredAt);
  return toCounter(row);
}

async function sqliteCreate(run: Run, c: ChallengeCreation): Promise<QuotaCounter | undefined> {
  if (c.quota.limit !== null && c.quota.limit <= 0) return undefined;
  await run(S.INSERT_CHALLENGE, challengeValues(c));
  await sqliteUsage(run, c.usage);
  // Last: the tenant's quota counter. When full, the caller's transaction rolls the rest back.
  const { rows } = await run<QuotaRow>(S.TAKE_QUOTA, [
    c.challenge.tenantId,
    c.quota.periodStart,
    c.quota.limit,
  ]);
  return rows[0] === undefined ? undefined : toCounter(rows[0]);
}
