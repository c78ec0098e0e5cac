import type { Invoice, InvoiceStatus } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { metersOfMonth } from './meters-of-month.js';
import { parsePeriod, periodContaining, previousPeriod, type BillingPeriod } from './billing-period.js';
import { firstUnclosedPeriod } from './close-period.js';
import { draftInvoiceView, draftPeriodLabel, finalInvoiceView } from './invoice-view.js';
import { resolvePlan } from './resolve-plan.js';

type ReadDeps = Pick<Deps, 'store' | 'clock' | 'billing'>;

export interface InvoicePage {
  items: Invoice[];
  /** The periodStart to continue before, when there are more. */
  nextBefore: number | undefined;
}

/**
 * Newest period first: the live drafts of the periods not closed yet (the current one, and the
 * previous one during the grace window), then the finalized invoices. Keyset by period start.
 */
export async function listInvoices(
  deps: ReadDeps,
  tenantId: string,
  filter: { status?: InvoiceStatus | undefined },
  page: { limit: number; before?: number | undefined },
): Promise<InvoicePage> {
  const drafts: Invoice[] = [];
  if (filter.status === undefined || filter.status === 'draft') {
    for (const period of await unclosedPeriods(deps, tenantId, page.before, page.limit + 1)) {
      drafts.push(await buildDraft(deps, tenantId, period));
    }
  }
  const room = page.limit + 1 - drafts.length;
  const finals =
    filter.status === 'draft' || room <= 0
      ? []
      : await deps.store.billing.invoices.list(
          tenantId,
          { before: page.before, status: filter.status },
          room,
        );
  const items = [...drafts, ...finals.map(finalInvoiceView)];
  const hasMore = items.length > page.limit;
  const shown = items.slice(0, page.limit);
  const last = shown.at(-1);
  return { items: shown, nextBefore: hasMore && last ? Date.parse(last.periodStart) : undefined };
}

/** A finalized invoice by id, or a live draft by `draft_YYYY-MM` while its period is unclosed. */
export async function getInvoice(deps: ReadDeps, tenantId: string, invoiceId: string): Promise<Invoice> {
  const label = draftPeriodLabel(invoiceId);
  if (label === undefined) {
    const invoice = await deps.store.billing.invoices.getForTenant(tenantId, invoiceId);
    if (!invoice) throw notFound('invoice');
    return finalInvoiceView(invoice);
  }
  const period = parsePeriod(label);
  if (!period) throw notFound('invoice');
  const closed = await deps.store.billing.invoices.getByPeriod(tenantId, period.start);
  if (closed) throw new DomainError('not_found', `${label} is closed: its invoice is ${closed.id}`);
  const first = await firstUnclosedPeriod(deps, tenantId);
  if (period.start < first.start || period.start > periodContaining(deps.clock.now()).start) {
    throw new DomainError(
      'not_found',
      `there is no draft for ${label}: drafts exist for unclosed periods up to the current one`,
    );
  }
  return buildDraft(deps, tenantId, period);
}

/** Unclosed periods through the current one, newest first, starting before `before`. */
async function unclosedPeriods(
  deps: ReadDeps,
  tenantId: string,
  before: number | undefined,
  limit: number,
): Promise<BillingPeriod[]> {
  const first = await firstUnclosedPeriod(deps, tenantId);
  const periods: BillingPeriod[] = [];
  let p = periodContaining(deps.clock.now());
  if (before !== undefined && p.start >= before) p = previousPeriod(periodContaining(before));
  for (; p.start >= first.start && periods.length < limit; p = previousPeriod(p)) periods.push(p);
  return periods;
}

async function buildDraft(deps: ReadDeps, tenantId: string, period: BillingPeriod): Promise<Invoice> {
  const quantities = await metersOfMonth(deps, tenantId, period);
  const { plan } = await resolvePlan(deps, deps.store.billing, tenantId, period.start);
  return draftInvoiceView(tenantId, period, plan, quantities, deps.clock.now());
}

/** An invoice with the customer's name, for the printable document. */
export async function getInvoiceDocument(deps: ReadDeps, tenantId: string, invoiceId: string) {
  const invoice = await getInvoice(deps, tenantId, invoiceId);
  const tenant = await deps.store.tenants.get(tenantId);
  return { invoice, customerName: tenant?.name ?? tenantId };
}
