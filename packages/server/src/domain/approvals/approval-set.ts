import { APPROVAL_SET_V1, type ApprovalSetV1 } from '@presence/contract';
import { canonicalJson, sha256Hex, toIso } from '../encoding.js';
import type { ReceiptSigner } from '../receipts/receipt-signer.js';
import type { ApprovalRecord, ApprovalSetRecord, ApproverRecord } from './ports.js';

/**
 * The `presence.approval-set.v1` of an approval that reached its quorum (docs/api-contract.md#13-approvals): the
 * approvers who approved, each with their receipt, in the order they decided.
 */
export function buildApprovalSet(
  approval: ApprovalRecord,
  approvers: ApproverRecord[],
  decidedAt: number,
): ApprovalSetV1 {
  const approved = approvers
    .filter((a) => a.decision === 'approved' && a.receiptId !== null && a.receiptHashHex !== null)
    .sort((a, b) => (a.decidedAt ?? 0) - (b.decidedAt ?? 0) || a.position - b.position);
  return {
    version: APPROVAL_SET_V1,
    approvalId: approval.id,
    tenantId: approval.tenantId,
    actionHashHex: approval.actionHashHex,
    action: JSON.parse(approval.actionJson) as Record<string, unknown>,
    title: approval.title,
    required: approval.required,
    approvers: [...approvers].sort((a, b) => a.position - b.position).map((a) => a.subject),
    ...(approval.initiator !== null && { initiator: approval.initiator }),
    approvals: approved.map((a) => ({
      subject: a.subject,
      receiptId: a.receiptId!,
      receiptHashHex: a.receiptHashHex!,
    })),
    createdAt: toIso(approval.createdAt),
    decidedAt: toIso(decidedAt),
  };
}

/**
 * Canonicalizes, hashes and signs an approval set like a receipt: Ed25519 over the RFC 8785
 * bytes, with the service key scheduled for `decidedAt`. The record keeps the exact signed bytes.
 */
export function sealApprovalSet(signer: ReceiptSigner, set: ApprovalSetV1): ApprovalSetRecord {
  const text = canonicalJson(set);
  const decidedAt = Date.parse(set.decidedAt);
  const key = signer.keyAt(decidedAt);
  return {
    approvalId: set.approvalId,
    tenantId: set.tenantId,
    canonicalJson: text,
    hashHex: sha256Hex(text),
    kid: key.kid,
    signatureB64Url: key.sign(Buffer.from(text, 'utf8')),
    decidedAt,
  };
}

/** The action a "Reject with passkey" ceremony signs, so a rejection is as provable as an approval. */
export function rejectionAction(approval: Pick<ApprovalRecord, 'id' | 'actionHashHex'>) {
  return {
    type: 'presence.approval.rejection',
    approvalId: approval.id,
    actionHashHex: approval.actionHashHex,
  };
}

export function rejectionActionHashHex(approval: Pick<ApprovalRecord, 'id' | 'actionHashHex'>): string {
  return sha256Hex(canonicalJson(rejectionAction(approval)));
}
