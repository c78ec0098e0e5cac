import type { ApprovalIntent } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import type { AllowedCredential } from '../presence/ports.js';
import {
  createChallenge,
  MAX_ALLOWED_CREDENTIALS,
  type ChallengeDeps,
} from '../presence/create-challenge.js';
import { rejectionActionHashHex } from './approval-set.js';
import { approvalOfToken, requirePending } from './approval-page.js';

/**
 * "Approve with passkey" / "Reject with passkey" on the hosted page: a normal challenge (contract
 * §2) over the approval's action hash, or over the hash of its rejection action, that allows the
 * passkeys of the approvers who have not decided yet (the initiator is never an approver). The
 * challenge is remembered as this approval's, for this intent; only such a challenge can decide it.
 */
export async function startApprovalCeremony(
  deps: ChallengeDeps & Pick<Deps, 'clock'>,
  token: string,
  intent: ApprovalIntent,
) {
  const approval = await approvalOfToken(deps, token);
  requirePending(approval, deps.clock.now());
  const { tenantId } = approval;
  const approvers = await deps.store.approvals.approvers.listFor(tenantId, [approval.id]);
  const allowed: AllowedCredential[] = [];
  for (const approver of approvers) {
    if (approver.decision !== null || approver.subject === approval.initiator) continue;
    const room = MAX_ALLOWED_CREDENTIALS - allowed.length;
    if (room <= 0) break;
    allowed.push(...(await deps.store.presence.allowedCredentials(tenantId, approver.subject, room)));
  }
  if (allowed.length === 0) {
    throw new DomainError(
      'policy_violation',
      'none of the approvers who have not decided has a passkey; send them enrollment links (POST /v1/presence/enrollment-links)',
    );
  }
  const actionHashHex = intent === 'approve' ? approval.actionHashHex : rejectionActionHashHex(approval);
  const created = await createChallenge(deps, tenantId, { actionHashHex, purpose: 'approval' }, { allowed });
  await deps.store.transaction((tx) =>
    tx.approvals.challenges.insert({
      challengeId: created.challengeId,
      tenantId,
      approvalId: approval.id,
      intent,
      createdAt: deps.clock.now(),
    }),
  );
  return {
    challengeId: created.challengeId,
    intent,
    actionHashHex,
    expiresAt: created.expiresAt,
    publicKey: created.publicKey,
  };
}
