import type { Decision } from '@presence/contract';
import { findCredential } from '../credentials/manage-credentials.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { ReceiptFilter } from './receipt-log-ports.js';

/** The filters shared by the receipt listing and the export pack, as the query carries them. */
export interface ReceiptQuery {
  from?: string | undefined;
  to?: string | undefined;
  subject?: string | undefined;
  actionHashHex?: string | undefined;
  /** The credential's service id (`cred_…`) or its WebAuthn credential id. */
  credentialId?: string | undefined;
  decision?: Decision | undefined;
}

/**
 * Turns query filters into a store filter. Undefined when the query can match nothing: receipts
 * exist only for PRESENCE_VERIFIED, and an unknown credential has none.
 */
export async function resolveReceiptFilter(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  query: ReceiptQuery,
): Promise<ReceiptFilter | undefined> {
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new DomainError('invalid_request', 'the time range is empty: `to` must be after `from`', [
      { field: 'querystring/to', message: 'must be after from' },
    ]);
  }
  if (query.decision !== undefined && query.decision !== 'PRESENCE_VERIFIED') return undefined;
  const filter: ReceiptFilter = { from, to, subject: query.subject, actionHashHex: query.actionHashHex };
  if (query.credentialId !== undefined) {
    const credential = await findCredential(deps.store, tenantId, query.credentialId);
    if (!credential) return undefined;
    filter.credentialRef = credential.id;
  }
  return filter;
}
