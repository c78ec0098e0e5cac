/**
 * The challenge-creation half of the hot path: the quota, the challenge and its usage in one call
 * (one statement on PostgreSQL; on SQLite a program of four cached statements with the quota
 * counter last, which a full quota undoes).
 */
import type { QuotaCounter } from '../../domain/billing/ports.js';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { ChallengeCreation } from '../../domain/presence/ports.js';
import type { Dialect } from '../open-database.js';
import {
  buckets,
  PERIOD_CLOSED,
  pgUnlessPeriodClosed,
  sqliteStep,
  sqliteUsageSteps,
  type Run,
  type RunProgram,
} from './run-statement.js';
import * as S from './statements.js';

export function createChallengeWrites(run: Run, program: RunProgram, dialect: Dialect, c: ChallengeCreation) {
  return dialect === 'postgres' ? pgCreate(run, c) : sqliteCreate(program, c);
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
  const { rows } = await pgUnlessPeriodClosed(c.usage.occurredAt, () =>
    run<QuotaRow & { rollups: number }>(S.PG_CREATE_CHALLENGE, [
      tenantId,
      c.quota.periodStart,
      c.quota.limit,
      id,
      ...rest.slice(0, 8),
      rest[8],
      c.usage.id,
      ...buckets(c.usage.occurredAt),
      c.usage.meter,
    ]),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.rollups !== 3) throw new BillingPeriodClosed(c.usage.occurredAt);
  return toCounter(row);
}

async function sqliteCreate(program: RunProgram, c: ChallengeCreation): Promise<QuotaCounter | undefined> {
  if (c.quota.limit !== null && c.quota.limit <= 0) return undefined;
  const result = await program({
    steps: [
      sqliteStep(S.INSERT_CHALLENGE, challengeValues(c)),
      ...sqliteUsageSteps(c.usage),
      // Last: the tenant's quota counter. When full, the program's writes are undone.
      sqliteStep(S.TAKE_QUOTA, [c.challenge.tenantId, c.quota.periodStart, c.quota.limit], {
        expect: 'a row',
        otherwise: { outcome: 'quota-full', undo: true },
        returns: true,
      }),
    ],
  });
  if (result.outcome === PERIOD_CLOSED) throw new BillingPeriodClosed(c.usage.occurredAt);
  const row = result.rows[0] as QuotaRow | undefined;
  return row === undefined ? undefined : toCounter(row);
}
