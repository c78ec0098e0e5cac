/**
 * Approval-set evidence from a running test service: real receipts of the listed approvers for
 * one action, assembled into a `presence.approval-set.v1` set and signed with the service's own
 * key exactly as the schema's header says. For sets the approvals API would never issue (a counted
 * initiator, other approvers); a set as the API issues it: issuedApproval in ../approvals.ts.
 */
import { computeActionHashSync } from '@presence/sdk/node';
import type { SoftAuthenticator } from '../soft-authenticator.js';
import type { TestService } from '../test-service.js';
import type { VectorsService } from './vectors-service.js';
import { vectorSigner, type SignedApprovalSet, type SignedEvidence } from './vector-signer.js';

export async function receiptOf(s: TestService, subject: string, action: unknown): Promise<SignedEvidence> {
  const { authenticator } = await s.enroll(subject);
  return approvedReceipt(s, authenticator, subject, action);
}

/** The receipt of `subject` approving `action` with `authenticator` (already enrolled): challenge, verify, read. */
export async function approvedReceipt(
  s: Pick<VectorsService, 'request'>,
  authenticator: SoftAuthenticator,
  subject: string,
  action: unknown,
): Promise<SignedEvidence> {
  const challenge = await s.request('POST', '/v1/presence/challenge', {
    actionHashHex: computeActionHashSync(action),
    subject,
  });
  const assertion = authenticator.assert({ challenge: challenge.json.publicKey.challenge });
  const verified = await s.request('POST', '/v1/presence/verify', {
    challengeId: challenge.json.challengeId,
    assertion,
  });
  if (verified.json.decision !== 'PRESENCE_VERIFIED') throw new Error(JSON.stringify(verified.json));
  return (await s.request('GET', `/v1/presence/receipts/${verified.json.receiptId}`)).json as SignedEvidence;
}

export interface ApprovalEvidence {
  approvalSet: SignedApprovalSet;
  receipts: SignedEvidence[];
}

export function assembleApprovalSet(
  s: TestService,
  action: Record<string, unknown>,
  receipts: SignedEvidence[],
  change: Record<string, unknown> = {},
): ApprovalEvidence {
  const entries = receipts.map((r) => {
    const { subject, receiptId } = r.receipt as { subject: string; receiptId: string };
    return { subject, receiptId, receiptHashHex: r.receiptHashHex };
  });
  const decidedAt = (receipts.at(-1)!.receipt as { issuedAt: string }).issuedAt;
  return {
    approvalSet: vectorSigner(s.composed.deps.signer).signApprovalSet({
      version: 'presence.approval-set.v1',
      approvalId: 'apr_01KAXN6Y7V3J0Q7ZKZ8D2W4C5B',
      tenantId: s.tenantId,
      actionHashHex: computeActionHashSync(action),
      action,
      title: null,
      required: entries.length,
      approvers: entries.map((e) => e.subject),
      initiator: 'ivan',
      approvals: entries,
      createdAt: new Date(Date.parse(decidedAt) - 60_000).toISOString(),
      decidedAt,
      ...change,
    }),
    receipts,
  };
}
