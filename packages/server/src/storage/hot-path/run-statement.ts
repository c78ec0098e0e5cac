/** How the hot path runs its compiled texts (statements.ts) on either dialect, and shared pieces. */
import { CompiledQuery, type Kysely } from 'kysely';
import { BillingPeriodClosed } from '../../domain/billing/ports.js';
import type { UsageEventRecord } from '../../domain/usage/ports.js';
import type { Dialect } from '../open-database.js';
import type { Database } from '../schema.js';
import { runProgram, type Program, type ProgramResult, type Step } from './sqlite-program.js';
import * as S from './statements.js';
import { usageEventValues } from '../tables/usage-events.js';
import { addToRollupsValues } from '../tables/usage-rollups.js';

export type Run = <R>(text: string, values: readonly unknown[]) => Promise<{ rows: R[]; changed: number }>;

/** Compiled once per text: SQLite's statement cache and PostgreSQL's named statements key on it. */
export function runner(db: Kysely<Database>, dialect: Dialect): Run {
  return async <R>(text: string, values: readonly unknown[]) => {
    let query = text;
    let parameters = values;
    if (dialect === 'sqlite') {
      const converted = S.SQLITE_FORMS.get(text);
      if (converted === undefined) throw new Error('not a hot-path statement');
      query = converted.text;
      parameters = converted.order(values);
    }
    const result = await db.executeQuery<R>(CompiledQuery.raw(query, [...parameters]));
    return { rows: result.rows, changed: Number(result.numAffectedRows ?? 0n) };
  };
}

/** SQLite: the usage event and its rollups; a sealed month undoes the program (`period-closed`). */
export function sqliteUsageSteps(u: UsageEventRecord): Step[] {
  return [
    sqliteStep(S.INSERT_USAGE, usageEventValues(u)),
    sqliteStep(S.ADD_TO_ROLLUPS, addToRollupsValues(u), {
      expect: 'three rows',
      otherwise: { outcome: PERIOD_CLOSED, undo: true },
    }),
  ];
}

/** The outcome of a SQLite program whose usage fell in a sealed month. */
export const PERIOD_CLOSED = 'period-closed';

/** Where the value a step keeps goes in a later step's values (sqlite-program.js `useKept`). */
export const KEPT = Symbol('the kept value');

/**
 * One step of a SQLite program (sqlite-program.js): the statement's SQLite form and its values in
 * that form's order; `KEPT` among the values marks where the kept value goes.
 */
export function sqliteStep(
  text: string,
  values: readonly unknown[],
  more: Omit<Step, 'sql' | 'params'> = {},
): Step {
  const form = S.SQLITE_FORMS.get(text);
  if (form === undefined) throw new Error('not a hot-path statement');
  const params = form.order(values);
  const kept = params.indexOf(KEPT);
  if (kept === -1) return { sql: form.text, params, ...more };
  params[kept] = null;
  return { sql: form.text, params, ...more, useKept: kept };
}

/** Runs a SQLite program: on the writer thread, or on a connection of this thread. */
export type RunProgram = (program: Program) => Promise<ProgramResult>;

/** A SQLite program on `db` (a transaction's connection): its `undo` is the caller's to throw. */
export function programOn(db: Kysely<Database>): RunProgram {
  const exec = async (text: string, params: unknown[]) => {
    const result = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(text, params));
    return { rows: result.rows, changed: Number(result.numAffectedRows ?? 0n) };
  };
  return (program) => runProgram(program, exec);
}

/**
 * PostgreSQL: a settle or creation statement fails as a whole when one of its rollups is sealed
 * (tables/usage-rollups.ts allRollupsOrFail); that failure is BillingPeriodClosed, and nothing
 * was written.
 */
export async function pgUnlessPeriodClosed<T>(occurredAt: number, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if ((error as { code?: unknown }).code === S.PG_ROLLUP_SEALED_SQLSTATE)
      throw new BillingPeriodClosed(occurredAt);
    throw error;
  }
}
