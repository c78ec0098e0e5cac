/** The verdicts of a pack verification, in the order they were reached. */

export interface PackCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface PackReport {
  valid: boolean;
  exportId: string | null;
  tenantId: string | null;
  receipts: number;
  checks: PackCheck[];
}

export class CheckList {
  readonly checks: PackCheck[] = [];

  add(name: string, ok: boolean, detail: string): boolean {
    this.checks.push({ name, ok, detail });
    return ok;
  }

  pass(name: string, detail: string): true {
    this.add(name, true, detail);
    return true;
  }

  fail(name: string, detail: string): false {
    this.add(name, false, detail);
    return false;
  }
}

/**
 * Counts failures per check while receipts stream by, keeping the first few examples so a report
 * says which lines failed without growing with the pack.
 */
export class Tally {
  private readonly failures = new Map<string, { count: number; examples: string[] }>();

  fail(check: string, example: string): void {
    const entry = this.failures.get(check) ?? { count: 0, examples: [] };
    entry.count += 1;
    if (entry.examples.length < 3) entry.examples.push(example);
    this.failures.set(check, entry);
  }

  /** Adds one check: passed with `okDetail`, or failed with the count and examples. */
  report(list: CheckList, check: string, okDetail: string): void {
    const entry = this.failures.get(check);
    if (!entry) list.pass(check, okDetail);
    else list.fail(check, `${entry.count} failure(s), e.g. ${entry.examples.join('; ')}`);
  }
}
