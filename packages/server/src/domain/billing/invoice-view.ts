import type { Invoice, MeterTotals, Plan } from '@presence/contract';
import { toIso } from '../encoding.js';
import type { InvoiceRecord } from './ports.js';
import { periodContaining, type BillingPeriod } from './billing-period.js';
import { priceUsage } from './price-usage.js';

const DRAFT_PREFIX = 'draft_';

/** The id of a period's live draft: `draft_YYYY-MM`. */
export function draftInvoiceId(period: BillingPeriod): string {
  return `${DRAFT_PREFIX}${period.label}`;
}

/** The period label of a draft id, or undefined for a finalized invoice's id. */
export function draftPeriodLabel(invoiceId: string): string | undefined {
  return invoiceId.startsWith(DRAFT_PREFIX) ? invoiceId.slice(DRAFT_PREFIX.length) : undefined;
}

export function invoiceNumber(sequence: number): string {
  return `INV-${String(sequence).padStart(6, '0')}`;
}

/** A finalized invoice as the API shows it. */
export function finalInvoiceView(r: InvoiceRecord): Invoice {
  return {
    invoiceId: r.id,
    tenantId: r.tenantId,
    number: r.number,
    status: r.status,
    period: periodContaining(r.periodStart).label,
    periodStart: toIso(r.periodStart),
    periodEnd: toIso(r.periodEnd),
    currency: r.currency,
    currencyExponent: r.currencyExponent,
    planName: r.plan.name,
    lines: r.lines,
    subtotalMinor: r.subtotalMinor,
    totalMinor: r.totalMinor,
    issuedAt: toIso(r.finalizedAt),
    paidAt: r.paidAt === null ? null : toIso(r.paidAt),
    voidedAt: r.voidedAt === null ? null : toIso(r.voidedAt),
    note: r.note,
    computedAt: toIso(r.finalizedAt),
  };
}

/** The live draft of an unclosed period: priced from the rollups as they are now. */
export function draftInvoiceView(
  tenantId: string,
  period: BillingPeriod,
  plan: Plan,
  quantities: MeterTotals,
  now: number,
): Invoice {
  const priced = priceUsage(plan, quantities);
  return {
    invoiceId: draftInvoiceId(period),
    tenantId,
    number: null,
    status: 'draft',
    period: period.label,
    periodStart: toIso(period.start),
    periodEnd: toIso(period.end),
    currency: plan.currency,
    currencyExponent: plan.currencyExponent,
    planName: plan.name,
    ...priced,
    issuedAt: null,
    paidAt: null,
    voidedAt: null,
    note: null,
    computedAt: toIso(now),
  };
}
