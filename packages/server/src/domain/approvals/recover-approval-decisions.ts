import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { recordApprovalDecision } from './record-approval-decision.js';

/** Decisions recovered per batch. */
export const RECOVERY_BATCH = 50;
/** How long after its verification a ceremony is left to its own request before the job steps in. */
export const RECOVERY_GRACE_MS = 30_000;

type RecoverDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'signer' | 'approvalWaiters'>;

/**
 * Completes the decisions of hosted-page ceremonies whose receipt was stored but whose decision
 * was not (the process stopped between the two, and nobody posted the decision again): the same
 * idempotent recording as `POST /approve/{token}/decide`, from the stored receipt. A decision the
 * rule refuses is left as it is. True when the batch was full (there may be more).
 */
export async function recoverApprovalDecisions(deps: RecoverDeps): Promise<boolean> {
  const now = deps.clock.now();
  const due = await deps.store.approvals.challenges.listUnrecorded(
    now,
    now - RECOVERY_GRACE_MS,
    RECOVERY_BATCH,
  );
  for (const ceremony of due) {
    const [approval, receipt] = await Promise.all([
      deps.store.approvals.approvals.get(ceremony.tenantId, ceremony.approvalId),
      deps.store.receipts.getByChallenge(ceremony.tenantId, ceremony.challengeId),
    ]);
    if (!approval || !receipt) continue;
    const evidence = { subject: receipt.subject, receiptId: receipt.id, receiptHashHex: receipt.hashHex };
    try {
      await recordApprovalDecision(deps, approval, ceremony.intent, evidence);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
    }
  }
  return due.length === RECOVERY_BATCH;
}
