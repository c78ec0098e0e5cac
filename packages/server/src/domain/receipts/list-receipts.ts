import type { ReceiptListItem } from '@presence/contract';
import type { Deps } from '../deps.js';
import { toChallengeView } from '../presence/get-challenge.js';
import type { Store } from '../ports.js';
import type { LoggedReceipt, ReceiptFilter, ReceiptLogPosition } from './receipt-log-ports.js';
import { toSignedReceipt } from './get-receipt.js';
import { resolveReceiptFilter, type ReceiptQuery } from './resolve-receipt-filter.js';

export interface ReceiptPage {
  items: ReceiptListItem[];
  /** Where the next page starts; null on the last page. */
  next: ReceiptLogPosition | null;
}

/**
 * One page of the tenant's receipts in seq order. A walk's first page fixes its seq bounds when
 * a time range is given, so later pages read exactly the receipts that were committed in range
 * when it began, each once, whatever arrives meanwhile.
 */
export async function listReceipts(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  query: ReceiptQuery & { order: 'asc' | 'desc' },
  page: { limit: number; position?: ReceiptLogPosition | undefined },
): Promise<ReceiptPage> {
  const filter = await resolveReceiptFilter(deps, tenantId, query);
  if (!filter) return { items: [], next: null };
  const position = page.position ?? (await startPosition(deps.store, tenantId, filter, query.order));
  if (!position) return { items: [], next: null };
  const rows = await deps.store.receiptLog.list(tenantId, filter, position, page.limit + 1);
  const items = rows.slice(0, page.limit);
  const last = items.at(-1);
  const now = deps.clock.now();
  return {
    items: items.map((r) => toListItem(r, now)),
    next: rows.length > page.limit && last ? { ...position, after: last.seq } : null,
  };
}

/** Where a walk begins: the whole log, or the seq window of receipts issued in the time range. */
export async function startPosition(
  store: Pick<Store, 'receiptLog'>,
  tenantId: string,
  filter: ReceiptFilter,
  order: 'asc' | 'desc',
): Promise<ReceiptLogPosition | undefined> {
  if (filter.from === undefined && filter.to === undefined) return { order, after: null, stop: null };
  const window = await store.receiptLog.seqWindow(tenantId, filter);
  if (!window) return undefined;
  return order === 'asc'
    ? { order, after: window.low - 1, stop: window.high }
    : { order, after: window.high + 1, stop: window.low };
}

function toListItem(r: LoggedReceipt, now: number): ReceiptListItem {
  return { seq: r.seq, ...toSignedReceipt(r.receipt), challenge: toChallengeView(r.challenge, now) };
}
