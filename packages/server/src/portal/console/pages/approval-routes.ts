import { VerifyBody } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import {
  approveChange,
  changeHashHex,
  startApproval,
  type ConsoleChange,
} from '../../../domain/console/approve-change.js';
import { requirePermission } from '../../../domain/console/permissions.js';
import { asMember } from '../../../domain/console/record-audit.js';
import { DomainError } from '../../../domain/errors.js';
import type { App } from '../../../http/types.js';
import { checkCsrf, consoleRequest, memberOf } from '../console-context.js';
import { openChangeLink } from '../../../domain/console/change-link.js';
import { openChangeRequest } from '../../../domain/console/console-changes.js';
import { consoleQuorum, eligibleApprovers } from '../../../domain/console/console-quorum.js';
import { plainJson } from './change-requests.js';
import { resolveChange } from './dangerous-changes.js';

const ChangeRequest = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 40 }),
    target: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
    params: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: false },
);

const Approval = Type.Object(
  {
    change: ChangeRequest,
    challengeId: VerifyBody.properties.challengeId,
    assertion: VerifyBody.properties.assertion,
  },
  { additionalProperties: false },
);

interface ChangeRequestBody {
  kind: string;
  target: string;
  params: Record<string, unknown>;
}

/**
 * Checks role, kind, parameters and target, and returns the exact change the passkey signs for
 * (with the before and after the member is shown), and who else must approve it when the tenant
 * requires more than one approver (a 409 when too few members could).
 */
async function prepare(request: FastifyRequest, body: ChangeRequestBody) {
  checkCsrf(request);
  const signedIn = memberOf(request);
  const { ctx } = consoleRequest(request);
  const { change, params } = resolveChange(body.kind, body.params);
  if (change.permission !== null) requirePermission(signedIn.member, change.permission);
  const member = signedIn.member;
  const tenantId = member.tenantId;
  await change.check(ctx, tenantId, body.target, params as never, member);
  const { before, after } = await change.describe(ctx, tenantId, body.target, params as never, member);
  const tenant = await ctx.deps.store.tenants.get(tenantId);
  const exact: ConsoleChange = {
    type: body.kind,
    tenantId,
    tenantName: tenant?.name ?? tenantId,
    memberId: member.id,
    memberName: member.displayName,
    target: body.target,
    params,
    before: plainJson(before),
    after: plainJson(after),
  };
  // A member's own new passkey is theirs alone (permission null): one approver, always.
  const required = change.permission === null ? 1 : await consoleQuorum(ctx.deps, tenantId);
  // A key change's approvers must also be allowed its scopes (a developer never approves a policy:write key).
  const key = await change.keyScopes?.(ctx, tenantId, body.target, params as never);
  const approvers =
    required > 1
      ? await eligibleApprovers(ctx.deps, member, change.permission!, required, key?.scopes)
      : [member];
  return { ctx, signedIn, change, params, exact, required, approvers };
}

/**
 * Dangerous changes, gated by Presence itself: step 1 makes a challenge bound to the change's
 * action hash for the member's passkeys; step 2 verifies the assertion and executes the change
 * only on PRESENCE_VERIFIED, then writes the audit line with the receipt.
 */
export function approvalRoutes(app: App): void {
  app.post(
    '/console/api/approvals/options',
    { schema: { hide: true, body: ChangeRequest } },
    async (request) => {
      const { ctx, signedIn, exact, required, approvers } = await prepare(request, request.body);
      const challenge = await startApproval(ctx.deps, ctx.settings, signedIn.member, exact);
      const approverNames = approvers.map((m) => m.displayName);
      return { ...challenge, change: exact, changeHashHex: changeHashHex(exact), required, approverNames };
    },
  );

  app.post('/console/api/approvals', { schema: { hide: true, body: Approval } }, async (request) => {
    const prepared = await prepare(request, request.body.change);
    const { ctx, signedIn, change, params, exact } = prepared;
    const receipt = await approveChange(ctx.deps, ctx.settings, signedIn.member, exact, {
      challengeId: request.body.challengeId,
      assertion: request.body.assertion,
    });
    if (prepared.required > 1) {
      // The requester's passkey gave the first approval; the others approve on the approval's page.
      const deps = asMember(ctx.deps, signedIn.member, { requestId: request.id, receipt });
      const record = await openChangeRequest(
        deps,
        ctx.settings,
        exact,
        signedIn.member,
        receipt,
        prepared.approvers,
        prepared.required,
      );
      return {
        message: `Your approval is the first of ${record.required} (binding code ${record.bindingCode}). The change is applied once ${record.required - 1} more of ${prepared.approvers.map((m) => m.displayName).join(', ')} approve${record.required - 1 === 1 ? 's' : ''} on the approval page; then apply it under Changes awaiting approval.`,
        pending: {
          changeId: record.id,
          approvalUrl: openChangeLink(ctx.deps, record),
          bindingCode: record.bindingCode,
          required: record.required,
        },
        redirect: '/console/changes',
        receiptId: receipt.receiptId,
        receiptHashHex: receipt.receiptHashHex,
      };
    }
    // The change's own audit event names this member and the receipt that approved it.
    const deps = asMember(ctx.deps, signedIn.member, { requestId: request.id, receipt });
    const result = await change.execute(
      { ...ctx, deps },
      exact.tenantId,
      exact.target,
      params as never,
      signedIn.member,
    );
    return { ...result, receiptId: receipt.receiptId, receiptHashHex: receipt.receiptHashHex };
  });

  // Without JavaScript a dangerous form lands here: it cannot run the passkey check.
  app.post('/console/approve', { schema: { hide: true } }, async () => {
    throw new DomainError(
      'forbidden',
      'this change must be approved with your passkey, which needs JavaScript in this page; enable it and try again',
    );
  });
}
