import type { Deps } from '../deps.js';
import { recordEvent } from '../events/record-event.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';
import { toAuditEvent } from './to-audit-event.js';
import type { AuditEventRecord, AuditTarget } from './ports.js';

export interface AuditChange {
  tenantId: string;
  /** `<target type>.<past participle>`, e.g. `api_key.created` (docs/console.md lists them). */
  action: string;
  target: AuditTarget;
  detail?: Record<string, unknown> | undefined;
}

/**
 * The one audit mechanism: every change of configuration or access writes one audit event and
 * its `audit.event` webhook in the caller's transaction, so the event exists if and only if the
 * change committed. The actor comes from `deps.audit`, set by the door the change came through;
 * without one (the service's own schedules, first-start bootstrap) nobody acted and nothing is
 * recorded.
 */
export async function recordAuditEvent(
  deps: Pick<Deps, 'clock' | 'random' | 'audit'>,
  tx: StoreTx,
  change: AuditChange,
): Promise<AuditEventRecord | undefined> {
  const context = deps.audit;
  if (context === undefined) return undefined;
  const record: AuditEventRecord = {
    id: newId(deps, 'aud'),
    tenantId: change.tenantId,
    at: deps.clock.now(),
    actor: context.actor,
    action: change.action,
    target: change.target,
    approvalId: context.approvalId ?? null,
    receiptId: context.receipt?.receiptId ?? null,
    receiptHashHex: context.receipt?.receiptHashHex ?? null,
    requestId: context.requestId ?? null,
    detail: change.detail ?? {},
  };
  await tx.auditEvents.insert(record);
  await recordEvent(deps, tx, change.tenantId, 'audit.event', toAuditEvent(record));
  return record;
}
