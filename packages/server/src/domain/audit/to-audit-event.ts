import type { AuditEvent } from '@presence/contract';
import { toIso } from '../encoding.js';
import type { AuditEventRecord } from './ports.js';

/** The wire shape of a stored audit event (docs/api-contract.md#14-audit-events); optional links only when present. */
export function toAuditEvent(r: AuditEventRecord): AuditEvent {
  return {
    auditEventId: r.id,
    at: toIso(r.at),
    actor: { type: r.actor.type, id: r.actor.id, name: r.actor.name },
    action: r.action,
    target:
      r.target.name === undefined
        ? { type: r.target.type, id: r.target.id }
        : { type: r.target.type, id: r.target.id, name: r.target.name },
    ...(r.approvalId === null ? {} : { approvalId: r.approvalId }),
    ...(r.receiptId === null ? {} : { receiptId: r.receiptId }),
    ...(r.requestId === null ? {} : { requestId: r.requestId }),
  };
}
