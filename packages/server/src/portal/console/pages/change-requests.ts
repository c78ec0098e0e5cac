import type { Scope } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { cancelChangeRequest, finishChange, refreshChange } from '../../../domain/console/console-changes.js';
import { mayApprove } from '../../../domain/console/console-quorum.js';
import { memberIdOfSubject } from '../../../domain/console/console-settings.js';
import { checkMemberKeyScopes } from '../../../domain/console/create-member-key.js';
import { mayChange, requirePermission, type ConsolePermission } from '../../../domain/console/permissions.js';
import type { ConsoleChangeRecord, MemberRecord } from '../../../domain/console/ports.js';
import { asMember } from '../../../domain/console/record-audit.js';
import { canonicalJson } from '../../../domain/encoding.js';
import { DomainError, notFound } from '../../../domain/errors.js';
import type { App } from '../../../http/types.js';
import { checkCsrf, consoleRequest, memberOf, type ConsoleContext } from '../console-context.js';
import { resolveChange, type ChangeResult, type DangerousChange } from './dangerous-changes.js';

const ChangeId = Type.Object(
  { id: Type.String({ pattern: '^chg_[0-9A-HJKMNP-TV-Z]{26}$' }) },
  { additionalProperties: false },
);
const NoBody = Type.Object({}, { additionalProperties: false });

async function changeOf(ctx: ConsoleContext, member: MemberRecord, id: string): Promise<ConsoleChangeRecord> {
  const record = await ctx.deps.store.console.changes.get(member.tenantId, id);
  if (!record) throw notFound('the change');
  return record;
}

/** Ends the change as stale (with its audit event) and refuses: nothing was changed. */
async function refuseStale(
  ctx: ConsoleContext,
  record: ConsoleChangeRecord,
  member: MemberRecord,
  why: string,
): Promise<never> {
  await finishChange(ctx.deps, record, 'stale', member, 'console_change.stale', { why });
  throw new DomainError(
    'conflict',
    `${why}: the ${record.kind} change was approved for a state that no longer holds, so it was not applied; nothing was changed. Ask for it again if it is still wanted.`,
  );
}

/**
 * Who may apply an approved change; a 403 leaves it pending. A member whose role may make it and,
 * for a key change, use every scope of the key (the same check as asking for it); a change that
 * hands out a secret, only the member who asked for it. Returns the key's scopes (none otherwise).
 */
async function requireApplier(
  ctx: ConsoleContext,
  record: ConsoleChangeRecord,
  change: DangerousChange,
  params: Record<string, unknown>,
  applier: MemberRecord,
): Promise<readonly Scope[]> {
  if (change.permission !== null) requirePermission(applier, change.permission);
  const key = await change.keyScopes?.(ctx, record.tenantId, record.target, params as never);
  if (key) checkMemberKeyScopes(applier, key.scopes, key.verb);
  if (change.returnsSecret && applier.id !== record.requesterId) {
    throw new DomainError(
      'forbidden',
      `only the member who asked for this ${record.kind} change may apply it: it hands out a secret, shown once to them; nothing was changed`,
    );
  }
  return key?.scopes ?? [];
}

/** Whether `member` may apply the change (the Apply button is shown only then). */
export async function mayApply(
  ctx: ConsoleContext,
  record: ConsoleChangeRecord,
  member: MemberRecord,
): Promise<boolean> {
  try {
    const { change, params } = resolveChange(record.kind, record.params);
    await requireApplier(ctx, record, change, params, member);
    return true;
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
}

/**
 * Applies an approved change once (docs/console.md#approvers-of-dangerous-changes): the applier
 * must be allowed to (requireApplier), the approval must be approved, the state must still be the
 * `before` its approvers saw, and the change row's compare-and-set pending → applied lets exactly
 * one of concurrent applies execute it. The change runs with the requester's rights; its audit
 * event names the member who applied it and the approval.
 */
export async function applyChange(
  ctx: ConsoleContext,
  applier: MemberRecord,
  id: string,
  requestId: string,
): Promise<ChangeResult> {
  const found = await changeOf(ctx, applier, id);
  const { change, params } = resolveChange(found.kind, found.params);
  const keyScopes = await requireApplier(ctx, found, change, params, applier);
  const { record, approval, approved } = await refreshChange(ctx.deps, ctx.settings, found);
  if (record.status !== 'pending') {
    throw new DomainError('conflict', `this change is already ${record.status}; nothing was changed`);
  }
  if (approval !== 'approved') {
    throw new DomainError(
      'conflict',
      `this change is not approved yet (${approved} of ${record.required} approvals); nothing was changed`,
    );
  }
  const deps = asMember(ctx.deps, applier, { requestId, approvalId: record.approvalId });
  const standing = await approvalsStillStanding(ctx, record, change.permission, keyScopes);
  if (standing < record.required) {
    return refuseStale(
      { ...ctx, deps },
      record,
      applier,
      `only ${standing} of its ${record.required} approvers are still members whose role may make it`,
    );
  }
  const requester = await ctx.deps.store.console.members.get(record.tenantId, record.requesterId);
  if (!requester || requester.removedAt !== null) {
    return refuseStale(
      { ...ctx, deps },
      record,
      applier,
      'the member who asked for it is no longer a member',
    );
  }
  if (change.permission !== null && !mayChange(requester.role, change.permission)) {
    const why = `the member who asked for it is now ${requester.role}, whose role may not change ${change.permission}`;
    return refuseStale({ ...ctx, deps }, record, applier, why);
  }
  let before: unknown;
  try {
    await change.check(ctx, record.tenantId, record.target, params as never, requester);
    before = (await change.describe(ctx, record.tenantId, record.target, params as never, requester)).before;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return refuseStale({ ...ctx, deps }, record, applier, error.detail);
  }
  if (canonicalJson(plainJson(before)) !== canonicalJson(plainJson(record.before))) {
    return refuseStale({ ...ctx, deps }, record, applier, 'it changed since it was approved');
  }
  await finishChange(ctx.deps, record, 'applied', applier);
  try {
    return await change.execute({ ...ctx, deps }, record.tenantId, record.target, params as never, requester);
  } catch (error) {
    // Claimed but not done (refused by the change itself): it is over; ask again.
    await ctx.deps.store.console.changes.transition(
      record.tenantId,
      record.id,
      'applied',
      'stale',
      ctx.deps.clock.now(),
      applier.id,
    );
    throw error;
  }
}

/** Approvals from approvers who may still approve it (console-quorum.ts mayApprove). */
async function approvalsStillStanding(
  ctx: ConsoleContext,
  record: ConsoleChangeRecord,
  permission: ConsolePermission | null,
  keyScopes: readonly Scope[],
): Promise<number> {
  const { consoleTenantId } = ctx.settings;
  const approvers = await ctx.deps.store.approvals.approvers.listFor(consoleTenantId, [record.approvalId]);
  const members = new Map((await ctx.deps.store.console.members.list(record.tenantId)).map((m) => [m.id, m]));
  return approvers.filter((a) => {
    const member = members.get(memberIdOfSubject(a.subject) ?? '');
    return a.decision === 'approved' && member !== undefined && mayApprove(member, permission, keyScopes);
  }).length;
}

/** What JSON keeps of a value (no undefined members), so describe() and stored rows compare. */
export function plainJson(value: unknown): unknown {
  return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as unknown);
}

function signedInRequest(request: FastifyRequest) {
  checkCsrf(request);
  const signedIn = memberOf(request);
  const { ctx } = consoleRequest(request);
  return { ctx, member: signedIn.member };
}

/** Apply and cancel a change that waited for its approvers. */
export function changeRequestRoutes(app: App): void {
  app.post<{ Params: { id: string } }>(
    '/console/api/changes/:id/apply',
    { schema: { hide: true, params: ChangeId, body: Type.Optional(NoBody) } },
    async (request) => {
      const { ctx, member } = signedInRequest(request);
      return applyChange(ctx, member, request.params.id, request.id);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/console/api/changes/:id/cancel',
    { schema: { hide: true, params: ChangeId, body: Type.Optional(NoBody) } },
    async (request) => {
      const { ctx, member } = signedInRequest(request);
      const record = await changeOf(ctx, member, request.params.id);
      const deps = asMember(ctx.deps, member, { requestId: request.id });
      await cancelChangeRequest(deps, ctx.settings, member, record);
      return { message: `The ${record.kind} change was cancelled; nothing was changed.` };
    },
  );
}
