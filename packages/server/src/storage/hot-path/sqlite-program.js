// @ts-check
/**
 * A SQLite write of the hot path written down as data, so the same steps can run on the writer
 * thread (sqlite-writer-thread.js, which cannot call back into the main thread) and on the main
 * connection inside a transaction (presence-hot-path.ts). A program is a list of statements in
 * SQLite's `?` form; a step may require a condition of its result, and say what the outcome is
 * when the condition does not hold: `stop` keeps what the program wrote so far (a compare-and-set
 * that lost), `undo` asks the caller to take all of the program's writes back (a sealed month, a
 * full quota). One step may keep a column of its first row for a later step's parameter (the
 * receipt sequence for the receipt). Plain JavaScript: worker threads load it without a compiler.
 */

/**
 * @typedef {'changed' | 'a row' | 'three rows'} Condition
 * @typedef {{ outcome: string, undo: boolean }} Otherwise
 * @typedef {{
 *   sql: string,
 *   params: unknown[],
 *   expect?: Condition,
 *   otherwise?: Otherwise,
 *   keep?: string,
 *   useKept?: number,
 *   returns?: boolean,
 * }} Step
 * @typedef {{ steps: Step[] }} Program
 * @typedef {{ outcome: string | null, undo: boolean, kept: unknown, rows: Record<string, unknown>[] }} ProgramResult
 * @typedef {{ rows: Record<string, unknown>[], changed: number }} StepResult
 * @typedef {(sql: string, params: unknown[]) => StepResult | Promise<StepResult>} Exec
 */

/**
 * Runs the steps in order through `exec`; stops at the first condition that does not hold.
 * @param {Program} program
 * @param {Exec} exec
 * @returns {Promise<ProgramResult>}
 */
export async function runProgram(program, exec) {
  /** @type {unknown} */
  let kept = null;
  /** @type {Record<string, unknown>[]} */
  let rows = [];
  for (const step of program.steps) {
    const params =
      step.useKept === undefined ? step.params : step.params.map((v, i) => (i === step.useKept ? kept : v));
    const result = await exec(step.sql, params);
    if (step.keep !== undefined) kept = result.rows[0]?.[step.keep] ?? null;
    if (step.returns === true) rows = result.rows;
    if (step.expect !== undefined && !holds(step.expect, result)) {
      if (step.otherwise === undefined)
        throw new Error('a program step expects a result but says no outcome');
      return { outcome: step.otherwise.outcome, undo: step.otherwise.undo, kept, rows };
    }
  }
  return { outcome: null, undo: false, kept, rows };
}

/**
 * @param {Condition} condition
 * @param {StepResult} result
 */
function holds(condition, result) {
  if (condition === 'changed') return result.changed > 0;
  if (condition === 'a row') return result.rows.length > 0;
  return result.rows.length === 3;
}
