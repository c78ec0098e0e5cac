import type { Approval, ApprovalCreated } from '@presence/sdk';
import QRCode from 'qrcode';

/** The exit codes of `presence approvals request --wait` (docs/api-contract.md#13-approvals). */
export const APPROVAL_EXIT = {
  approved: 0,
  failed: 1,
  usage: 2,
  rejected: 3,
  expiredOrCancelled: 4,
  waitEnded: 5,
} as const;

/** The exit code of an approval as last read: pending means the wait ended first. */
export function exitCodeOf(approval: Pick<Approval, 'status'>): number {
  switch (approval.status) {
    case 'approved':
      return APPROVAL_EXIT.approved;
    case 'rejected':
      return APPROVAL_EXIT.rejected;
    case 'expired':
    case 'cancelled':
      return APPROVAL_EXIT.expiredOrCancelled;
    case 'pending':
      return APPROVAL_EXIT.waitEnded;
  }
}

/** A QR code of `text` for a terminal (the `qrcode` library's terminal renderer, two rows per line). */
export function terminalQr(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'terminal', small: true });
}

/** What a person hands to the approvers: the link, the binding code, and a QR code of the link. */
export async function formatCreated(created: ApprovalCreated): Promise<string> {
  const needed = `${created.required} of ${created.approvers.length}`;
  return [
    `approval ${created.approvalId} created (${needed}: ${created.approvers.map((a) => a.subject).join(', ')})`,
    `  link          ${created.approvalUrl}`,
    `  binding code  ${created.bindingCode}   (tell the approvers: their page shows the same code)`,
    `  action hash   ${created.actionHashHex}`,
    `  expires       ${created.expiresAt}`,
    '',
    await terminalQr(created.approvalUrl),
  ].join('\n');
}

/** The approval as read: status, each approver's decision and, once approved, the set's hash. */
export function formatApproval(approval: Approval): string {
  const lines = [
    `approval ${approval.approvalId}: ${approval.status}`,
    ...(approval.title === null ? [] : [`  title         ${approval.title}`]),
    `  action hash   ${approval.actionHashHex}`,
    `  required      ${approval.required} of ${approval.approvers.length}`,
    ...(approval.initiator === undefined ? [] : [`  initiator     ${approval.initiator}`]),
    ...approval.approvers.map(
      (a) =>
        `  approver      ${a.subject}: ${a.decision ?? 'undecided'}` +
        (a.receiptId === undefined ? '' : ` (receipt ${a.receiptId})`),
    ),
    `  expires       ${approval.expiresAt}`,
    ...(approval.decidedAt === undefined ? [] : [`  decided       ${approval.decidedAt}`]),
  ];
  if (approval.approvalSet !== undefined) {
    lines.push(`  approval set  ${approval.approvalSet.approvalSetHashHex}`);
  }
  return `${lines.join('\n')}\n`;
}
