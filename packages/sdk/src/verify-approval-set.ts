import { APPROVAL_SET_V1 } from '#contract';
import {
  verifyApprovalSetV1,
  type ApprovalSetEvidence,
  type ApprovalSetReport,
  type VerifyApprovalSetOptions,
} from './approval-set-v1/verify-approval-set-v1.js';
import { fail } from './receipt-report.js';

export type {
  ApprovalSetCheckName,
  ApprovalSetEvidence,
  ApprovalSetReport,
  VerifyApprovalSetOptions,
} from './approval-set-v1/verify-approval-set-v1.js';

/**
 * Checks an approval set offline, trusting nothing but the service keys you pass: hash, service
 * signature, key validity at `decidedAt`, actionHashHex = SHA-256(JCS(action)), the executor's own
 * action when given, every listed receipt valid (the receipt verifier) for this action and its
 * listed subject, at least `required` approvals, from distinct listed approvers, never the
 * initiator. `evidence` is one line of an export pack's approvals.ndjson:
 * `{approvalSet: {approvalSet, approvalSetHashHex, signature}, receipts: [{receipt, receiptHashHex, signature}, …]}`.
 */
export function verifyApprovalSet(
  evidence: ApprovalSetEvidence,
  options: VerifyApprovalSetOptions,
): ApprovalSetReport {
  const version: unknown = (evidence?.approvalSet?.approvalSet as { version?: unknown } | null | undefined)
    ?.version;
  if (version === APPROVAL_SET_V1) return verifyApprovalSetV1(evidence, options);
  const named =
    typeof version === 'string' ? JSON.stringify(version.slice(0, 64)) : 'an approval set without a version';
  return {
    valid: false,
    approvalId: null,
    approvalSetHashHex: null,
    checks: {
      schema: fail(`${named} is not an approval-set version this verifier knows (${APPROVAL_SET_V1})`),
    },
  };
}
