/**
 * The challenge-creation half of the hot path: the quota, the challenge and its usage in one call
 * (one statement on PostgreSQL; on SQLite a program of four cached statements with the quota
 * counter last, which a full quota undoes).
 */
import type { QuotaCounter } from '../../domain/billing/ports.js';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { ChallengeCreation } from '../../domain/presence/ports.js';
import type { Dialect } from '../open-database.js';
import { newChallengeValues } from '../tables/challenges.js';
import { takeQuotaValues, toQuotaCounter } from '../tables/quota-counters.js';
import { rollupBuckets as buckets } from '../tables/usage-rollups.js';
import {
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

type QuotaRow = Parameters<typeof toQuotaCounter>[0];

async function pgCreate(run: Run, c: ChallengeCreation): Promise<QuotaCounter | undefined> {
  if (c.quota.limit !== null && c.quota.limit <= 0) return undefined;
  const [id, , ...rest] = newChallengeValues(c.challenge);
  const { rows } = await pgUnlessPeriodClosed(c.usage.occurredAt, () =>
    run<QuotaRow & { rollups: number }>(S.PG_CREATE_CHALLENGE, [
      ...takeQuotaValues(c.challenge.tenantId, c.quota.periodStart, c.quota.limit), // $1..$3: TAKE_QUOTA's
      id,
      ...rest, // $5..$13: the new challenge's columns after id and tenant_id
      c.usage.id,
      ...buckets(c.usage.occurredAt),
      c.usage.meter,
    ]),
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  if (row.rollups !== 3) throw new BillingPeriodClosed(c.usage.occurredAt);
  return toQuotaCounter(row);
}

async function sqliteCreate(program: RunProgram, c: ChallengeCreation): Promise<QuotaCounter | undefined> {
  if (c.quota.limit !== null && c.quota.limit <= 0) return undefined;
  const result = await program({
    steps: [
      sqliteStep(S.INSERT_CHALLENGE, newChallengeValues(c.challenge)),
      ...sqliteUsageSteps(c.usage),
      // Last: the tenant's quota counter. When full, the program's writes are undone.
      sqliteStep(S.TAKE_QUOTA, takeQuotaValues(c.challenge.tenantId, c.quota.periodStart, c.quota.limit), {
        expect: 'a row',
        otherwise: { outcome: 'quota-full', undo: true },
        returns: true,
      }),
    ],
  });
  if (result.outcome === PERIOD_CLOSED) throw new BillingPeriodClosed(c.usage.occurredAt);
  const row = result.rows[0] as QuotaRow | undefined;
  return row === undefined ? undefined : toQuotaCounter(row);
}
