import type { AuditActorType, AuditEvent } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { AuditEventFilter } from './ports.js';
import { toAuditEvent } from './to-audit-event.js';

export interface AuditEventQuery {
  from?: string | undefined;
  to?: string | undefined;
  actorType?: AuditActorType | undefined;
  action?: string | undefined;
}

/** Turns query filters into a store filter; an empty time range is a 400 naming `to`. */
export function resolveAuditFilter(query: AuditEventQuery): AuditEventFilter {
  const from = query.from === undefined ? undefined : Date.parse(query.from);
  const to = query.to === undefined ? undefined : Date.parse(query.to);
  if (from !== undefined && to !== undefined && from >= to) {
    throw new DomainError('invalid_request', 'the time range is empty: `to` must be after `from`', [
      { field: 'querystring/to', message: 'must be after from' },
    ]);
  }
  return { from, to, actorType: query.actorType, action: query.action };
}

/** One page of the tenant's audit events, newest first. */
export async function listAuditEvents(
  deps: Pick<Deps, 'store'>,
  tenantId: string,
  query: AuditEventQuery,
  page: { limit: number; beforeId?: string | undefined },
): Promise<{ items: AuditEvent[]; hasMore: boolean }> {
  const rows = await deps.store.auditEvents.list(tenantId, resolveAuditFilter(query), {
    limit: page.limit + 1,
    beforeId: page.beforeId,
  });
  return { items: rows.slice(0, page.limit).map(toAuditEvent), hasMore: rows.length > page.limit };
}
