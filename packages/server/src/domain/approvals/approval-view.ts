import type { Approval, ApprovalSetV1, ApprovalStatus, SignedApprovalSet } from '@presence/contract';
import { toIso } from '../encoding.js';
import type { ApprovalRecord, ApprovalSetRecord, ApproverRecord } from './ports.js';

/** The status a reader sees: a pending approval past its expiry is expired, settled or not. */
export function effectiveStatus(a: ApprovalRecord, now: number): ApprovalStatus {
  return a.status === 'pending' && a.expiresAt <= now ? 'expired' : a.status;
}

/** The approval as the API returns it (GET, lists, webhook data). */
export function toApprovalView(
  a: ApprovalRecord,
  approvers: ApproverRecord[],
  set: ApprovalSetRecord | undefined,
  now: number,
): Approval {
  const status = effectiveStatus(a, now);
  return {
    approvalId: a.id,
    status,
    actionHashHex: a.actionHashHex,
    action: JSON.parse(a.actionJson) as Record<string, unknown>,
    title: a.title,
    required: a.required,
    approvers: approvers.map((r) => ({
      subject: r.subject,
      decision: r.decision,
      ...(r.receiptId !== null && { receiptId: r.receiptId }),
      ...(r.receiptHashHex !== null && { receiptHashHex: r.receiptHashHex }),
      ...(r.decidedAt !== null && { decidedAt: toIso(r.decidedAt) }),
    })),
    ...(a.initiator !== null && { initiator: a.initiator }),
    ...(a.purpose !== null && { purpose: a.purpose }),
    bindingCode: a.bindingCode,
    expiresAt: toIso(a.expiresAt),
    createdAt: toIso(a.createdAt),
    ...(status === 'expired' && a.decidedAt === null && { decidedAt: toIso(a.expiresAt) }),
    ...(a.decidedAt !== null && { decidedAt: toIso(a.decidedAt) }),
    ...(set && { approvalSet: toSignedApprovalSet(set) }),
  };
}

export function toSignedApprovalSet(set: ApprovalSetRecord): SignedApprovalSet {
  return {
    approvalSet: JSON.parse(set.canonicalJson) as ApprovalSetV1,
    approvalSetHashHex: set.hashHex,
    signature: { alg: 'Ed25519', kid: set.kid, signatureB64Url: set.signatureB64Url },
  };
}
