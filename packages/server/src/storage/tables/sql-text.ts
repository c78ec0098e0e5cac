/**
 * Small builders for the table modules' SQL texts, so that a statement's column list, its values
 * and its SET clause follow one column list (a table module's) and cannot fall out of order.
 */

/** `$first`, `$first+1`, … per column, in the columns' order (PostgreSQL placeholders; statements.ts forSqlite). */
export function numbered<C extends string>(columns: readonly C[], first = 1): Record<C, string> {
  return Object.fromEntries(columns.map((column, i) => [column, `$${first + i}`])) as Record<C, string>;
}

/** `$first, $first+1, …` for the columns of an insert. */
export function placeholders(columns: readonly string[], first = 1): string {
  return inColumnOrder(columns, numbered(columns, first));
}

/** The expression of each column, in the columns' order: for `insert … select <this>` and `values (<this>)`. */
export function inColumnOrder<C extends string>(
  columns: readonly C[],
  expressions: Record<C, string>,
): string {
  return columns.map((column) => expressions[column]).join(', ');
}

/** `column = expression, …` in the columns' order: an UPDATE's SET clause. */
export function assignments<C extends string>(columns: readonly C[], expressions: Record<C, string>): string {
  return columns.map((column) => `${column} = ${expressions[column]}`).join(', ');
}

/** A constant as an SQL string literal (for values the code fixes, never for input). */
export function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
