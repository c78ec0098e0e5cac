import type { ClosePeriodResult } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { parsePeriod, periodContaining } from './billing-period.js';
import { closeTenantPeriod, type ClosedInvoice } from './close-period.js';

const BATCH = 500;

/**
 * The operator's close (`presence invoices close --period YYYY-MM`, POST /admin/v1/…/close):
 * one tenant, or every tenant that existed during the period and has no invoice for it yet.
 * Closing again finalizes nothing new; the current or a future period is refused.
 */
export async function closePeriod(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'billing'>,
  input: { period: string; tenantId?: string | undefined },
): Promise<ClosePeriodResult> {
  const period = parsePeriod(input.period);
  if (!period) {
    throw new DomainError('invalid_request', 'period must be YYYY-MM', [
      { field: 'period', message: 'YYYY-MM' },
    ]);
  }
  if (period.end > deps.clock.now()) {
    const current = periodContaining(deps.clock.now()).label;
    throw new DomainError(
      'conflict',
      `${period.label} has not ended (the current period is ${current}); only past periods can be closed`,
    );
  }
  const closed: ClosedInvoice[] = [];
  if (input.tenantId !== undefined) {
    closed.push(...(await closeTenantPeriod(deps, input.tenantId, period)));
  } else {
    for (;;) {
      const tenants = await deps.store.billing.invoices.tenantsToClose(period.start, period.end, BATCH);
      for (const tenantId of tenants) closed.push(...(await closeTenantPeriod(deps, tenantId, period)));
      if (tenants.length < BATCH) break;
    }
  }
  return { period: period.label, invoices: closed.map(summary) };
}

function summary({ invoice, created }: ClosedInvoice) {
  return {
    tenantId: invoice.tenantId,
    invoiceId: invoice.id,
    number: invoice.number,
    period: periodContaining(invoice.periodStart).label,
    totalMinor: invoice.totalMinor,
    currency: invoice.currency,
    currencyExponent: invoice.currencyExponent,
    created,
  };
}
