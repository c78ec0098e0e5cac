/**
 * The verification rules of `presence.approval-set.v1` (docs/api-contract.md#13-approvals, docs/evidence.md): the set is
 * checked like a receipt (schema, hash, service signature, key validity at `decidedAt`), then its
 * own rules, one named check each, and every listed receipt with the receipt v1 verifier. Like the
 * receipt verifier it never throws on bad input: every problem is a failed check with a reason.
 */
import { createHash } from 'node:crypto';
import { ApprovalSetV1, type ServiceKey } from '#contract';
import { Value } from '@sinclair/typebox/value';
import { canonicalJson, canonicalOrNull, NOT_I_JSON } from '../canonical-json.js';
import { registerDateTimeFormat } from '../pack/date-time-format.js';
import { fail, pass, type ReceiptCheck, type SignedReceiptInput } from '../receipt-report.js';
import { verifyReceipt } from '../verify-receipt.js';
import { checkServiceSignature } from '../check-service-signature.js';

export type ApprovalSetCheckName =
  | 'schema'
  | 'hash'
  | 'serviceSignature'
  | 'serviceKeyValid'
  | 'actionHash'
  | 'action'
  | 'receipts'
  | 'requiredApprovals'
  | 'distinctSubjects'
  | 'listedApprovers'
  | 'initiatorExcluded';

export interface ApprovalSetReport {
  valid: boolean;
  approvalId: string | null;
  approvalSetHashHex: string | null;
  checks: Partial<Record<ApprovalSetCheckName, ReceiptCheck>>;
}

/**
 * The evidence of one approval, as an export pack's approvals.ndjson carries it: the signed set
 * (as `GET /v1/approvals/{id}` returns it in `approvalSet`) and the signed receipts it lists (as
 * `GET /v1/presence/receipts/{receiptId}` returns each).
 */
export interface ApprovalSetEvidence {
  approvalSet: {
    approvalSet: unknown;
    approvalSetHashHex?: string | undefined;
    signature?: SignedReceiptInput['signature'];
  };
  receipts: readonly SignedReceiptInput[];
}

export interface VerifyApprovalSetOptions {
  keys: readonly ServiceKey[];
  /** The executor's own action: when given, SHA-256(JCS(action)) must be the set's actionHashHex. */
  action?: unknown;
}

type Entry = { subject: string; receiptId: string; receiptHashHex: string };

const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

export function verifyApprovalSetV1(
  evidence: ApprovalSetEvidence,
  options: VerifyApprovalSetOptions,
): ApprovalSetReport {
  const checks: ApprovalSetReport['checks'] = {};
  const signed = evidence.approvalSet;
  const set = signed.approvalSet as ApprovalSetV1;
  registerDateTimeFormat();
  const schemaError = Value.Check(ApprovalSetV1, set) ? null : Value.Errors(ApprovalSetV1, set).First();
  if (schemaError !== null) {
    checks.schema = fail(
      `not a valid presence.approval-set.v1 object: ${schemaError?.path || '/'} ${schemaError?.message ?? ''}`,
    );
    return { valid: false, approvalId: null, approvalSetHashHex: null, checks };
  }
  const text = canonicalOrNull(set);
  if (text === null) {
    checks.schema = fail(`not a valid presence.approval-set.v1 object: ${NOT_I_JSON}`);
    return { valid: false, approvalId: null, approvalSetHashHex: null, checks };
  }
  checks.schema = pass('a presence.approval-set.v1 object: every field present, well-formed, nothing else');
  const hashHex = sha256Hex(text);
  checks.hash =
    signed.approvalSetHashHex === undefined
      ? pass(`SHA-256 of the canonical approval set is ${hashHex} (no expected hash given)`)
      : signed.approvalSetHashHex === hashHex
        ? pass('approvalSetHashHex matches the canonical bytes')
        : fail(`expected ${signed.approvalSetHashHex}, computed ${hashHex}`);
  Object.assign(
    checks,
    checkServiceSignature(Buffer.from(text, 'utf8'), set.decidedAt, signed.signature, options.keys),
  );
  const actionHash = sha256Hex(canonicalJson(set.action));
  checks.actionHash =
    actionHash === set.actionHashHex
      ? pass('actionHashHex is the SHA-256 of the canonical action')
      : fail(`the action hashes to ${actionHash}, not to actionHashHex ${set.actionHashHex}`);
  if (options.action !== undefined) checks.action = checkExecutorAction(options.action, set.actionHashHex);
  checks.receipts = checkReceipts(set, evidence.receipts, options.keys);
  Object.assign(checks, checkApprovers(set));
  return {
    valid: Object.values(checks).every((c) => c.ok),
    approvalId: set.approvalId,
    approvalSetHashHex: hashHex,
    checks,
  };
}

export function checkExecutorAction(action: unknown, actionHashHex: string): ReceiptCheck {
  let hash: string;
  try {
    hash = sha256Hex(canonicalJson(action));
  } catch (error) {
    return fail(
      `the executor's action has no canonical form: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return hash === actionHashHex
    ? pass('the executor action hashes to actionHashHex')
    : fail(`the executor action hashes to ${hash}, the evidence is for ${actionHashHex}`);
}

function checkReceipts(
  set: ApprovalSetV1,
  receipts: readonly SignedReceiptInput[],
  keys: readonly ServiceKey[],
): ReceiptCheck {
  const list = Array.isArray(receipts) ? receipts : [];
  for (const entry of set.approvals as Entry[]) {
    const signed = list.find(
      (s) => (s.receipt as { receiptId?: unknown } | null)?.receiptId === entry.receiptId,
    );
    if (signed === undefined) return fail(`the receipt ${entry.receiptId} is not in the evidence`);
    const report = verifyReceipt(signed, { keys });
    const failed = Object.entries(report.checks)
      .filter(([, c]) => !c.ok)
      .map(([name]) => name);
    if (!report.valid) return fail(`the receipt ${entry.receiptId} is not valid (${failed.join(', ')})`);
    const receipt = signed.receipt as { subject: string; actionHashHex: string };
    if (report.receiptHashHex !== entry.receiptHashHex)
      return fail(`the receipt ${entry.receiptId} does not hash to the listed receiptHashHex`);
    if (receipt.subject !== entry.subject)
      return fail(`the receipt ${entry.receiptId} is for ${receipt.subject}, listed for ${entry.subject}`);
    if (receipt.actionHashHex !== set.actionHashHex)
      return fail(`the receipt ${entry.receiptId} is for another action`);
  }
  return pass(
    `every listed receipt is valid, for this action and its listed subject (${set.approvals.length})`,
  );
}

function checkApprovers(set: ApprovalSetV1): Partial<Record<ApprovalSetCheckName, ReceiptCheck>> {
  const subjects = set.approvals.map((a) => a.subject);
  const duplicate = subjects.find((s, i) => subjects.indexOf(s) !== i);
  const unlisted = subjects.find((s) => !set.approvers.includes(s));
  const initiator = set.initiator;
  return {
    requiredApprovals:
      subjects.length >= set.required
        ? pass(`${subjects.length} approvals, ${set.required} required`)
        : fail(`${subjects.length} approvals, ${set.required} required`),
    distinctSubjects:
      duplicate === undefined
        ? pass('each approval is from another subject')
        : fail(`${duplicate} approved more than once`),
    listedApprovers:
      unlisted === undefined
        ? pass('every approval is from a listed approver')
        : fail(`${unlisted} is not among the approvers`),
    initiatorExcluded:
      initiator === undefined || (!subjects.includes(initiator) && !set.approvers.includes(initiator))
        ? pass(
            initiator === undefined
              ? 'no initiator named'
              : `the initiator ${initiator} neither approves nor is counted`,
          )
        : fail(`the initiator ${initiator} is listed or counted as an approver`),
  };
}
