import { MAX_ACTION_BYTES, MAX_ACTION_DEPTH, type CreateApprovalBody } from '@presence/contract';
import type { Deps } from '../deps.js';
import { canonicalJson, sha256Hex, toIso } from '../encoding.js';
import { DomainError, type FieldError } from '../errors.js';
import { newId } from '../ids.js';
import { toApprovalView } from './approval-view.js';
import { newBindingCode, newLinkToken } from './link-token.js';
import type { ApprovalRecord, ApproverRecord } from './ports.js';
import { claimUniqueAction, uniqueActionsOn } from './unique-actions.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';

export const DEFAULT_APPROVAL_TTL_SECONDS = 900;

/** Who made a change to an approval, for the audit log: an API key, or a console member (its changes). */
export type ApprovalActor = { apiKeyId: string } | { memberId: string };

/** Where the hosted pages live: `<publicOrigin>/approve/<token>`, `<publicOrigin>/enroll/<token>`. */
export interface LinkSettings {
  publicOrigin: string;
  /**
   * The console's origin: a console change's approval (in the console's own tenant) is made with
   * it as its publicOrigin, and its page is judged against it (approval-page.ts `pageOrigin`).
   */
  consoleOrigin?: string | undefined;
}

type CreateDeps = Pick<Deps, 'store' | 'clock' | 'random' | 'currentPolicies' | 'audit'>;

/**
 * Asks the listed approvers to approve one exact action (docs/api-contract.md#13-approvals): the action is stored in
 * its RFC 8785 canonical form with its SHA-256, and the link's token only as a hash. The response
 * is the only time the link is shown.
 */
export async function createApproval(
  deps: CreateDeps,
  tenantId: string,
  input: CreateApprovalBody,
  links: LinkSettings,
  actor: ApprovalActor,
) {
  checkActionDepth(input.action);
  const actionJson = canonicalJson(input.action);
  checkApprovalInput(input, Buffer.byteLength(actionJson, 'utf8'));
  const actionHashHex = sha256Hex(actionJson);
  const now = deps.clock.now();
  const { token, tokenHash } = newLinkToken(deps.random);
  const approval: ApprovalRecord = {
    id: newId(deps, 'apr'),
    tenantId,
    actionJson,
    actionHashHex,
    title: input.title ?? null,
    required: input.required ?? 1,
    initiator: input.initiator ?? null,
    purpose: input.purpose ?? null,
    status: 'pending',
    tokenHash,
    bindingCode: newBindingCode(deps.random),
    version: 0,
    createdAt: now,
    expiresAt: now + (input.expiresInSeconds ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000,
    decidedAt: null,
  };
  const approvers: ApproverRecord[] = input.approvers.map((subject, position) => ({
    approvalId: approval.id,
    tenantId,
    subject,
    position,
    decision: null,
    receiptId: null,
    receiptHashHex: null,
    decidedAt: null,
  }));
  const unique = await uniqueActionsOn(deps, tenantId);
  await deps.store.transaction(async (tx) => {
    const holder = { holderId: approval.id, until: approval.expiresAt };
    await claimUniqueAction(deps, tx, tenantId, actionHashHex, holder, unique);
    await tx.approvals.approvals.insert(approval);
    await tx.approvals.approvers.insertAll(approvers);
    const audit = deps.audit && { ...deps.audit, approvalId: approval.id };
    await recordAuditEvent({ ...deps, audit }, tx, {
      tenantId,
      action: 'approval.created',
      target: { type: 'approval', id: approval.id, name: approval.title ?? undefined },
      detail: {
        ...actor,
        actionHashHex,
        approvers: input.approvers,
        required: approval.required,
      },
    });
  });
  const view = toApprovalView(approval, approvers, undefined, now);
  return {
    ...view,
    approvalUrl: `${links.publicOrigin}/approve/${token}`,
    expiresAt: toIso(approval.expiresAt),
  };
}

/** The rules the schema cannot say: size of the canonical form, distinct approvers, quorum, initiator. */
function checkApprovalInput(input: CreateApprovalBody, actionBytes: number): void {
  const errors: FieldError[] = [];
  if (actionBytes > MAX_ACTION_BYTES) {
    errors.push({
      field: '/action',
      message: `canonical form is ${actionBytes} bytes; at most ${MAX_ACTION_BYTES}`,
    });
  }
  const distinct = new Set(input.approvers);
  if (distinct.size !== input.approvers.length) {
    errors.push({ field: '/approvers', message: 'approvers must be distinct subjects' });
  }
  const required = input.required ?? 1;
  if (required > input.approvers.length) {
    errors.push({
      field: '/required',
      message: `required ${required} exceeds the ${input.approvers.length} approvers`,
    });
  }
  if (input.initiator !== undefined && distinct.has(input.initiator)) {
    errors.push({ field: '/initiator', message: 'the initiator cannot be one of the approvers' });
  }
  if (errors.length > 0) {
    throw new DomainError(
      'invalid_request',
      errors.map((e) => `${e.field}: ${e.message}`).join('; '),
      errors,
    );
  }
}

/**
 * Refuses an action nested deeper than MAX_ACTION_DEPTH before anything recurses over it (an
 * action of a million nested arrays fits in a body and would exhaust the stack). Iterative.
 */
function checkActionDepth(action: object): void {
  const stack: [unknown, number][] = [[action, 1]];
  while (stack.length > 0) {
    const [value, depth] = stack.pop()!;
    if (typeof value !== 'object' || value === null) continue;
    if (depth > MAX_ACTION_DEPTH) {
      const message = `nested more than ${MAX_ACTION_DEPTH} levels deep`;
      throw new DomainError('invalid_request', `/action: ${message}`, [{ field: '/action', message }]);
    }
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
}
