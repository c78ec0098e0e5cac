/** Small conversions shared by the repos: row values ↔ record values. */

export function toFlag(value: boolean): number {
  return value ? 1 : 0;
}

export function fromFlag(value: number): boolean {
  return value === 1;
}

/** Values this service wrote itself with JSON.stringify; not untrusted input. */
export function parseJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

/** True when an UPDATE changed at least one row (both drivers report a bigint count). */
export function changedAny(result: { numUpdatedRows: bigint }): boolean {
  return result.numUpdatedRows > 0n;
}
