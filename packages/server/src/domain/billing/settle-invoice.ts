import type { Invoice } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { finalInvoiceView } from './invoice-view.js';

/**
 * The operator records the outcome of an open invoice: paid, or void. Repeating the same
 * outcome changes nothing; a paid or void invoice never changes again. Lines and amounts are
 * immutable in any case (the database refuses updates to them).
 */
export async function settleInvoice(
  deps: Pick<Deps, 'store' | 'clock'>,
  invoiceId: string,
  status: 'paid' | 'void',
  note?: string | undefined,
): Promise<Invoice> {
  const invoices = deps.store.billing.invoices;
  const before = await invoices.get(invoiceId);
  if (!before) throw notFound('invoice');
  if (before.status === 'open') {
    await invoices.settle(invoiceId, { status, at: deps.clock.now(), note: note ?? null });
  }
  const after = await invoices.get(invoiceId);
  if (!after) throw notFound('invoice');
  if (after.status !== status) {
    throw new DomainError(
      'conflict',
      `invoice ${after.number} is ${after.status}; only an open invoice can become ${status}`,
    );
  }
  return finalInvoiceView(after);
}
