/**
 * The executor's check of one piece of evidence, whatever framework carries it: a signed receipt
 * `{receipt, receiptHashHex, signature}` or an approval set with its receipts
 * `{approvalSet: {approvalSet, approvalSetHashHex, signature}, receipts}`. It adds to the offline
 * verifiers what only the executor knows: its own action (the `action` check) and how old it
 * accepts evidence to be (`maxAge`). Single use is the guard's (create-receipt-guard.ts).
 */
import type { ServiceKey } from '#contract';
import { checkExecutorAction } from '../approval-set-v1/verify-approval-set-v1.js';
import { fail, pass, type ReceiptCheck, type SignedReceiptInput } from '../receipt-report.js';
import { verifyApprovalSet, type ApprovalSetEvidence } from '../verify-approval-set.js';
import { verifyReceipt } from '../verify-receipt.js';

export interface EvidenceReport {
  valid: boolean;
  kind: 'receipt' | 'approvalSet';
  /** receiptId or approvalId; null when the evidence is not even well-formed. */
  id: string | null;
  /** receiptHashHex or approvalSetHashHex as computed; the key of the single-use check. */
  hashHex: string | null;
  checks: Record<string, ReceiptCheck>;
}

export interface CheckEvidenceOptions {
  keys: readonly ServiceKey[];
  /** The executor's own action; its hash must be the evidence's actionHashHex. */
  action?: unknown;
  /** Refuse a receipt issued (or an approval set decided) longer ago than this. */
  maxAgeSeconds?: number | undefined;
  /** Unix milliseconds; defaults to Date.now(). */
  now?: number | undefined;
}

export function isApprovalSetEvidence(evidence: unknown): evidence is ApprovalSetEvidence {
  return typeof evidence === 'object' && evidence !== null && 'approvalSet' in evidence;
}

export function checkEvidence(evidence: unknown, options: CheckEvidenceOptions): EvidenceReport {
  if (isApprovalSetEvidence(evidence)) {
    const report = verifyApprovalSet(evidence, options);
    const checks = { ...report.checks } as Record<string, ReceiptCheck>;
    const decidedAt = (evidence.approvalSet.approvalSet as { decidedAt?: unknown }).decidedAt;
    if (report.checks.schema?.ok === true && options.maxAgeSeconds !== undefined) {
      checks.maxAge = checkMaxAge(String(decidedAt), options);
    }
    return finish('approvalSet', report.approvalId, report.approvalSetHashHex, checks);
  }
  const signed = (
    typeof evidence === 'object' && evidence !== null ? evidence : { receipt: evidence }
  ) as SignedReceiptInput;
  const report = verifyReceipt(signed, options);
  const checks = { ...report.checks } as Record<string, ReceiptCheck>;
  if (report.checks.schema?.ok === true) {
    const receipt = signed.receipt as { actionHashHex: string; issuedAt: string };
    if (options.action !== undefined)
      checks.action = checkExecutorAction(options.action, receipt.actionHashHex);
    if (options.maxAgeSeconds !== undefined) checks.maxAge = checkMaxAge(receipt.issuedAt, options);
  }
  return finish('receipt', report.receiptId, report.receiptHashHex, checks);
}

function checkMaxAge(at: string, options: CheckEvidenceOptions): ReceiptCheck {
  const ageSeconds = ((options.now ?? Date.now()) - Date.parse(at)) / 1000;
  return ageSeconds <= (options.maxAgeSeconds ?? Infinity)
    ? pass(`${Math.floor(ageSeconds)} s old, at most ${options.maxAgeSeconds} s accepted`)
    : fail(`${Math.floor(ageSeconds)} s old, at most ${options.maxAgeSeconds} s accepted`);
}

function finish(
  kind: EvidenceReport['kind'],
  id: string | null,
  hashHex: string | null,
  checks: Record<string, ReceiptCheck>,
): EvidenceReport {
  return { valid: Object.values(checks).every((c) => c.ok), kind, id, hashHex, checks };
}
