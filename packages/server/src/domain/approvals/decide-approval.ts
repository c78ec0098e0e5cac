import type { DecideBody, VerifyResult } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { verifyPresence } from '../presence/verify-presence.js';
import { approvalOfToken, approvalPageState, approvalPageStateOf, requirePending } from './approval-page.js';
import type { LinkSettings } from './create-approval.js';
import type { ApprovalChallengeRecord, ApprovalRecord } from './ports.js';
import { recordApprovalDecisionWithState } from './record-approval-decision.js';

type DecideDeps = Pick<
  Deps,
  'store' | 'clock' | 'random' | 'signer' | 'publicKeys' | 'policies' | 'currentPolicies' | 'approvalWaiters'
>;

/**
 * Finishes a passkey ceremony of the hosted page: the normal verify path (one decision per
 * challenge, a normal receipt for the approver's subject), then the approver's decision. Only a
 * challenge issued by this approval's page can decide it. A denial is data (200, recorded false).
 * A verified passkey whose subject cannot decide (the initiator, not listed, already decided) is
 * a 403 naming the receipt, which stays as evidence. Recoverable: if the process stopped after
 * the receipt, the same request again finds the challenge verified and records from its receipt.
 */
export async function decideApproval(
  deps: DecideDeps,
  token: string,
  input: DecideBody,
  links: LinkSettings,
) {
  const approval = await approvalOfToken(deps, token);
  const ceremony = await deps.store.approvals.challenges.get(approval.tenantId, input.challengeId);
  if (!ceremony || ceremony.approvalId !== approval.id) {
    throw new DomainError('not_found', 'this challenge was not issued for this approval', [
      { field: '/challengeId', message: 'not a challenge of this approval page' },
    ]);
  }
  const challenge = await deps.store.challenges.get(approval.tenantId, input.challengeId);
  if (!challenge) throw notFound('the challenge');
  if (challenge.status === 'pending') requirePending(approval, deps.clock.now());
  const verified =
    challenge.status === 'pending' ? await verifyPresence(deps, approval.tenantId, input) : undefined;
  const passed = verified ? verified.decision === 'PRESENCE_VERIFIED' : challenge.status === 'verified';
  if (!passed)
    return answer(deps, approval, ceremony, links, denialOf(verified, challenge.decision, challenge.reason));
  const receipt = await deps.store.receipts.getByChallenge(approval.tenantId, challenge.id);
  if (!receipt) throw notFound('the receipt of this challenge');
  const recorded = await recordApprovalDecisionWithState(deps, approval, ceremony.intent, {
    subject: receipt.subject,
    receiptId: receipt.id,
    receiptHashHex: receipt.hashHex,
  });
  const outcome = {
    decision: 'PRESENCE_VERIFIED' as const,
    recorded: true,
    receiptId: receipt.id,
    receiptHashHex: receipt.hashHex,
  };
  if (recorded.outcome === 'already-recorded') return answer(deps, approval, ceremony, links, outcome);
  // The state the decision's transaction committed: no second read of the approval and its approvers.
  const state = await approvalPageStateOf(deps, recorded.approval, recorded.approvers, links);
  return { ...outcome, intent: ceremony.intent, state };
}

function denialOf(verified: VerifyResult | undefined, decision: string | null, reason: string | null) {
  const result = verified ?? {
    decision: (decision ?? 'CHALLENGE_ALREADY_USED') as VerifyResult['decision'],
    reason: reason ?? 'the challenge was already used',
  };
  return {
    decision: result.decision,
    recorded: false,
    ...(result.reason !== undefined && { reason: result.reason }),
  };
}

async function answer<T extends object>(
  deps: DecideDeps,
  approval: ApprovalRecord,
  ceremony: ApprovalChallengeRecord,
  links: LinkSettings,
  outcome: T,
) {
  const fresh = (await deps.store.approvals.approvals.get(approval.tenantId, approval.id)) ?? approval;
  return { ...outcome, intent: ceremony.intent, state: await approvalPageState(deps, fresh, links) };
}
