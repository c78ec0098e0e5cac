/**
 * Approval-set vectors (`presence.approval-set.v1`, docs/api-contract.md#13-approvals): sets assembled from real
 * receipts of the real service and signed with its key exactly as the schema's header says
 * (Ed25519 over the RFC 8785 bytes, key scheduled for `decidedAt`). Each tampering is re-signed,
 * so exactly the named check fails. The evidence an executor gets is one line of an export pack's
 * approvals.ndjson: `{approvalSet: {approvalSet, approvalSetHashHex, signature}, receipts: [...]}`.
 */
import type { SignedApprovalSet, SignedEvidence, VectorSigner } from './vector-signer.js';

export const APPROVAL_SET_CHECKS = [
  'schema',
  'hash',
  'serviceSignature',
  'serviceKeyValid',
  'actionHash',
  'receipts',
  'requiredApprovals',
  'distinctSubjects',
  'listedApprovers',
  'initiatorExcluded',
];

export interface ApprovalSetEvidence {
  approvalSet: SignedApprovalSet;
  receipts: SignedEvidence[];
}

export interface ApprovalSetVector {
  name: string;
  keys: string;
  evidence: ApprovalSetEvidence;
  action?: unknown;
  maxAgeSeconds?: number;
  /** Unix seconds "now" for the max-age check (counted from decidedAt). */
  now?: number;
  expect: { valid: boolean; failed: string[] };
}

type Receipt = Record<string, unknown>;

export function approvalSetVectors(input: {
  signer: VectorSigner;
  approvalId: string;
  tenantId: string;
  action: Record<string, unknown>;
  otherAction: unknown;
  /** Real receipts for `action`, by subject; `alice2` is a second receipt of alice. */
  receipts: Record<'alice' | 'alice2' | 'bob' | 'carol' | 'dave' | 'ivan', SignedEvidence>;
}): ApprovalSetVector[] {
  const { signer, receipts: r } = input;
  const entry = (s: SignedEvidence) => {
    const receipt = s.receipt as Receipt;
    return {
      subject: String(receipt.subject),
      receiptId: String(receipt.receiptId),
      receiptHashHex: s.receiptHashHex,
    };
  };
  const times = [r.alice, r.bob].map((s) => Date.parse(String((s.receipt as Receipt).issuedAt)));
  const base = {
    version: 'presence.approval-set.v1',
    approvalId: input.approvalId,
    tenantId: input.tenantId,
    actionHashHex: signer.hash(input.action),
    action: input.action,
    title: 'Payout to DE89 3704 0044 0532 0130 00',
    required: 2,
    approvers: ['alice', 'bob', 'carol'],
    initiator: 'ivan',
    approvals: [entry(r.alice), entry(r.bob)],
    createdAt: new Date(Math.min(...times) - 60_000).toISOString(),
    decidedAt: new Date(Math.max(...times)).toISOString(),
  };
  const set = (change: Partial<typeof base> & Record<string, unknown>, receipts: SignedEvidence[]) => ({
    approvalSet: signer.signApprovalSet({ ...base, ...change }),
    receipts,
  });
  const valid = set({}, [r.alice, r.bob]);
  const decided = Math.floor(Date.parse(base.decidedAt) / 1000);
  const vector = (
    name: string,
    evidence: ApprovalSetEvidence,
    failed: string[],
    action?: unknown,
  ): ApprovalSetVector => ({
    name,
    keys: 'keys.json',
    evidence,
    ...(action === undefined ? {} : { action }),
    expect: { valid: failed.length === 0, failed },
  });
  const withoutInitiator = Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'initiator'));
  const tamperedReceipt = signer.signReceipt({ ...(r.bob.receipt as Receipt), subject: 'bob' });
  const brokenBob = {
    ...tamperedReceipt,
    receipt: { ...(tamperedReceipt.receipt as Receipt), signCount: 999 },
  };
  return [
    vector('two of three approved', valid, []),
    vector('two of three approved, with the executor action', valid, [], input.action),
    vector(
      'one approver, no initiator, no title',
      {
        approvalSet: signer.signApprovalSet({
          ...withoutInitiator,
          title: null,
          required: 1,
          approvers: ['carol'],
          approvals: [entry(r.carol)],
        }),
        receipts: [r.carol],
      },
      [],
    ),
    vector('the executor action differs', valid, ['action'], input.otherAction),
    vector(
      'a string holds a lone surrogate (schema)',
      {
        ...valid,
        approvalSet: {
          ...valid.approvalSet,
          approvalSet: { ...valid.approvalSet.approvalSet, title: 'Payout \udc00' },
        },
      },
      ['schema'],
    ),
    vector('an extra member (schema)', set({ note: 'x' }, [r.alice, r.bob]), ['schema']),
    vector(
      'approvalSetHashHex differs',
      { ...valid, approvalSet: { ...valid.approvalSet, approvalSetHashHex: 'cd'.repeat(32) } },
      ['hash'],
    ),
    vector(
      'the service signature altered',
      {
        ...valid,
        approvalSet: {
          ...valid.approvalSet,
          signature: {
            ...valid.approvalSet.signature,
            signatureB64Url: valid.approvalSet.signature.signatureB64Url.replace(/^./, (c) =>
              c === 'A' ? 'B' : 'A',
            ),
          },
        },
      },
      ['serviceSignature'],
    ),
    vector(
      'the action does not hash to actionHashHex',
      set({ action: { ...input.action, amount: '25000.00' } }, [r.alice, r.bob]),
      ['actionHash'],
    ),
    vector('too few approvals', set({ approvals: [entry(r.alice)] }, [r.alice]), ['requiredApprovals']),
    vector(
      'the same subject twice',
      set({ approvals: [entry(r.alice), entry(r.alice2)] }, [r.alice, r.alice2]),
      ['distinctSubjects'],
    ),
    vector(
      'an approver who is not listed',
      set({ approvals: [entry(r.alice), entry(r.dave)] }, [r.alice, r.dave]),
      ['listedApprovers'],
    ),
    vector(
      'the initiator counted',
      set({ approvers: ['alice', 'bob', 'ivan'], approvals: [entry(r.alice), entry(r.ivan)] }, [
        r.alice,
        r.ivan,
      ]),
      ['initiatorExcluded'],
    ),
    vector(
      'a listed receipt is not valid',
      set({ approvals: [entry(r.alice), entry(brokenBob)] }, [r.alice, brokenBob]),
      ['receipts'],
    ),
    vector('a listed receipt is missing', set({}, [r.alice]), ['receipts']),
    vector(
      'a listed receipt is for another subject',
      set({ approvals: [entry(r.alice), { ...entry(r.bob), subject: 'carol' }] }, [r.alice, r.bob]),
      ['receipts'],
    ),
    { ...vector('within the maximum age', valid, []), maxAgeSeconds: 300, now: decided + 299 },
    {
      ...vector('decided longer ago than the maximum age', valid, ['maxAge']),
      maxAgeSeconds: 300,
      now: decided + 301,
    },
    {
      ...vector('valid after its key was retired (a later keys.json)', valid, []),
      keys: 'keys-rotated.json',
    },
    // The set and its receipts are signed by the same key: none of them is within its validity.
    {
      ...vector('decided outside the key validity', valid, ['serviceKeyValid', 'receipts']),
      keys: 'keys-not-yet-valid.json',
    },
  ];
}
