import type { Deps } from '../deps.js';
import { newId } from '../ids.js';
import type { StoreTx } from '../ports.js';
import type { AuditRecord } from './ports.js';

export type AuditEntry = Omit<AuditRecord, 'id' | 'createdAt' | 'receiptId' | 'receiptHashHex'> & {
  receipt?: { receiptId: string; receiptHashHex: string } | undefined;
};

/** One line of the tenant's console audit log: who did what, when, and the receipt that approved it. */
export async function recordAudit(
  deps: Pick<Deps, 'clock' | 'random'>,
  tx: Pick<StoreTx, 'console'>,
  entry: AuditEntry,
): Promise<void> {
  await tx.console.audit.insert({
    id: newId(deps, 'aud'),
    tenantId: entry.tenantId,
    memberId: entry.memberId,
    action: entry.action,
    target: entry.target,
    detail: entry.detail,
    receiptId: entry.receipt?.receiptId ?? null,
    receiptHashHex: entry.receipt?.receiptHashHex ?? null,
    createdAt: deps.clock.now(),
  });
}
