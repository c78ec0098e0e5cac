/**
 * The verify hot path (domain/presence/ports.ts PresenceHotPath) for both dialects, over the
 * compiled texts of statements.ts: no query builder per request. SQLite runs the write set as a
 * few cached statements inside the caller's BEGIN IMMEDIATE (no round trips there); PostgreSQL as
 * one named prepared statement (one round trip between BEGIN and COMMIT).
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
import { toChallenge } from '../repos/challenges.js';
import { toCredentialInUse } from '../repos/credentials.js';
import { currentTraceParent } from '../repos/outbox.js';
import { parseJson, toFlag } from '../repos/rows.js';
import { createChallengeWrites } from './challenge-creation.js';
import { buckets, pgUnlessPeriodClosed, runner, sqliteUsage, type Run } from './run-statement.js';
import * as S from './statements.js';

export function createPresenceHotPath(db: Kysely<Database>, dialect: Dialect): PresenceHotPath {
  const run = runner(db, dialect);
  return {
    async allowedCredentials(tenantId, subject, limit) {
      const { rows } = await run<{ credential_id: string; transports: string }>(S.ALLOWED_CREDENTIALS, [
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
    createChallenge: (c) => mapUniqueViolation(() => createChallengeWrites(run, dialect, c)),
  };
}

function credentialOf(row: Record<string, unknown>) {
  if (row.cr_id === null || row.cr_id === undefined) return undefined;
  const columns: Record<string, unknown> = {};
  for (const [column, alias] of S.CREDENTIAL_ALIASES) columns[column] = row[alias];
  return toCredentialInUse(columns as Parameters<typeof toCredentialInUse>[0]);
}

function eventValues(e: OutboxEventRecord) {
  return [e.id, e.tenantId, e.type, JSON.stringify(e.payload ?? null), e.createdAt, currentTraceParent()];
}

async function pgVerified(run: Run, s: VerifiedSettlement): Promise<SettleOutcome> {
  const { credentialUse: use, receipt: r } = s;
  const { rows } = await pgUnlessPeriodClosed(s.usage.occurredAt, () =>
    run<{ claimed: number; settled: number; rollups: number; seq: number | null }>(S.PG_SETTLE_VERIFIED, [
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
      currentTraceParent(),
    ]),
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
    ]),
  );
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
