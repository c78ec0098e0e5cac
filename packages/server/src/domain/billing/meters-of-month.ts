import type { MeterTotals } from '@presence/contract';
import type { Deps } from '../deps.js';
import type { BillingPeriod } from './billing-period.js';
import { zeroTotals } from './get-usage.js';

/** The period's quantity per meter, from its month rollups (one row per meter). */
export async function metersOfMonth(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  period: BillingPeriod,
): Promise<MeterTotals> {
  const totals = zeroTotals();
  for (const bucket of await deps.store.billing.rollups.list(tenantId, 'month', period.start, period.end)) {
    if (bucket.meter in totals) totals[bucket.meter as keyof MeterTotals] += bucket.quantity;
  }
  return totals;
}
