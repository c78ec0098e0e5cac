import { METERS, type MeterTotals } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toIso } from '../encoding.js';
import { DomainError, notFound } from '../errors.js';
import { recordEvent } from '../events/record-event.js';
import { newId } from '../ids.js';
import { UniqueViolation, type StoreTx } from '../ports.js';
import type { InvoiceRecord } from './ports.js';
import { nextPeriod, periodContaining, type BillingPeriod } from './billing-period.js';
import { zeroTotals } from './get-usage.js';
import { finalInvoiceView, invoiceNumber } from './invoice-view.js';
import { priceUsage } from './price-usage.js';
import { resolvePlan } from './resolve-plan.js';

type CloseDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'billing'>;

export interface ClosedInvoice {
  invoice: InvoiceRecord;
  /** False when the period was already closed: closing again changes nothing. */
  created: boolean;
}

/**
 * Finalizes the tenant's invoice for `period`, after those of any earlier unclosed periods
 * (oldest first, so numbers follow periods). A period that has not ended is refused.
 */
export async function closeTenantPeriod(
  deps: CloseDeps,
  tenantId: string,
  period: BillingPeriod,
): Promise<ClosedInvoice[]> {
  if (period.end > deps.clock.now()) {
    throw new DomainError(
      'conflict',
      `the period ${period.label} has not ended; it can be closed from ${toIso(period.end)}`,
    );
  }
  const first = await firstUnclosedPeriod(deps, tenantId);
  const results: ClosedInvoice[] = [];
  for (let p = first; p.start <= period.start; p = nextPeriod(p)) {
    results.push(await closeOne(deps, tenantId, p));
  }
  if (results.length > 0) return results;
  const existing = await deps.store.billing.invoices.getByPeriod(tenantId, period.start);
  return existing ? [{ invoice: existing, created: false }] : [];
}

/** The period after the tenant's last invoice, or the month the tenant was created in. */
export async function firstUnclosedPeriod(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
): Promise<BillingPeriod> {
  const tenant = await deps.store.tenants.get(tenantId);
  if (!tenant) throw notFound('tenant');
  const latest = await deps.store.billing.invoices.latestPeriodStart(tenantId);
  return latest === undefined ? periodContaining(tenant.createdAt) : nextPeriod(periodContaining(latest));
}

/**
 * One transaction: seal the month's usage counters (waiting for transactions that counted usage
 * in it; later ones fail and retry into the next period), price them with the plan in force,
 * take the next gap-free number, store the immutable invoice and its `invoice.finalized` event.
 */
async function closeOne(deps: CloseDeps, tenantId: string, period: BillingPeriod): Promise<ClosedInvoice> {
  try {
    return await deps.store.transaction(async (tx) => {
      const existing = await tx.billing.invoices.getByPeriod(tenantId, period.start);
      if (existing) return { invoice: existing, created: false };
      const invoice = await buildInvoice(deps, tx, tenantId, period);
      await tx.billing.invoices.insert(invoice);
      await recordEvent(deps, tx, tenantId, 'invoice.finalized', finalInvoiceView(invoice));
      return { invoice, created: true };
    });
  } catch (error) {
    // Another process closed it first; its transaction won, ours took no number.
    if (!(error instanceof UniqueViolation)) throw error;
    const invoice = await deps.store.billing.invoices.getByPeriod(tenantId, period.start);
    if (!invoice) throw error;
    return { invoice, created: false };
  }
}

async function buildInvoice(
  deps: CloseDeps,
  tx: StoreTx,
  tenantId: string,
  period: BillingPeriod,
): Promise<InvoiceRecord> {
  const sealed = await tx.billing.rollups.sealMonth(tenantId, period.start, METERS);
  const quantities: MeterTotals = zeroTotals();
  for (const meter of METERS) quantities[meter] = sealed[meter] ?? 0;
  const { plan } = await resolvePlan(deps, tx.billing, tenantId, period.start);
  const priced = priceUsage(plan, quantities);
  const sequence = await tx.billing.invoices.takeSequence(tenantId);
  return {
    id: newId(deps, 'inv'),
    tenantId,
    sequence,
    number: invoiceNumber(sequence),
    status: 'open',
    periodStart: period.start,
    periodEnd: period.end,
    currency: plan.currency,
    currencyExponent: plan.currencyExponent,
    plan,
    ...priced,
    finalizedAt: deps.clock.now(),
    paidAt: null,
    voidedAt: null,
    note: null,
  };
}
