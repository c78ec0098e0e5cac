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
import { recordAudit } from '../../../domain/console/record-audit.js';
import { DomainError } from '../../../domain/errors.js';
import type { App } from '../../../http/types.js';
import { checkCsrf, consoleRequest, memberOf } from '../console-context.js';
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

/** Checks role, kind, parameters and target, and returns the exact change the passkey signs for. */
async function prepare(request: FastifyRequest, body: ChangeRequestBody) {
  checkCsrf(request);
  const signedIn = memberOf(request);
  const { ctx } = consoleRequest(request);
  const { change, params } = resolveChange(body.kind, body.params);
  if (change.permission !== null) requirePermission(signedIn.member, change.permission);
  const tenantId = signedIn.member.tenantId;
  await change.check(ctx, tenantId, body.target, params as never, signedIn.member);
  const exact: ConsoleChange = {
    type: body.kind,
    tenantId,
    memberId: signedIn.member.id,
    target: body.target,
    params,
  };
  return { ctx, signedIn, change, params, exact };
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
      const { ctx, signedIn, exact } = await prepare(request, request.body);
      const challenge = await startApproval(ctx.deps, ctx.settings, signedIn.member, exact);
      return { ...challenge, change: exact, changeHashHex: changeHashHex(exact) };
    },
  );

  app.post('/console/api/approvals', { schema: { hide: true, body: Approval } }, async (request) => {
    const { ctx, signedIn, change, params, exact } = await prepare(request, request.body.change);
    const receipt = await approveChange(ctx.deps, ctx.settings, signedIn.member, exact, {
      challengeId: request.body.challengeId,
      assertion: request.body.assertion,
    });
    const result = await change.execute(ctx, exact.tenantId, exact.target, params as never, signedIn.member);
    await recordAudit(ctx.deps, ctx.deps.store, {
      tenantId: exact.tenantId,
      memberId: signedIn.member.id,
      action: exact.type,
      target: result.created ?? exact.target,
      detail: { params, changeHashHex: changeHashHex(exact) },
      receipt,
    });
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
