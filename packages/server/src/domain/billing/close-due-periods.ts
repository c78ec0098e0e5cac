import type { Deps } from '../deps.js';
import { closeTenantPeriod } from './close-period.js';
import { periodContaining, previousPeriod, type BillingPeriod } from './billing-period.js';

/** The latest period whose end is at least the grace window in the past. */
export function latestClosablePeriod(now: number, graceMs: number): BillingPeriod {
  return previousPeriod(periodContaining(now - graceMs));
}

/**
 * The scheduled close: finalizes, for up to `limit` tenants, every period that ended more than
 * the grace window ago and has no invoice yet. Safe to run from several processes at once
 * (closing is idempotent). One tenant's failure does not stop the others; it is rethrown at the end.
 */
export async function closeDuePeriods(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'billing'>,
  limit = 50,
): Promise<{ invoices: number; more: boolean }> {
  const due = latestClosablePeriod(deps.clock.now(), deps.billing.closeGraceMs);
  const tenants = await deps.store.billing.invoices.tenantsToClose(due.start, due.end, limit);
  const failures: unknown[] = [];
  let invoices = 0;
  for (const tenantId of tenants) {
    try {
      invoices += (await closeTenantPeriod(deps, tenantId, due)).filter((c) => c.created).length;
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) {
    throw new AggregateError(failures, `closing ${due.label} failed for ${failures.length} tenant(s)`);
  }
  return { invoices, more: tenants.length === limit };
}
