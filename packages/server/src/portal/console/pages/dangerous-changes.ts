import { PolicyBody } from '@presence/contract';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { changeMemberRole } from '../../../domain/console/change-member-role.js';
import { removeMember } from '../../../domain/console/manage-members.js';
import { startMemberPasskey } from '../../../domain/console/add-member-passkey.js';
import { createInvite } from '../../../domain/console/create-invite.js';
import { requireGrantableRole, type ConsolePermission } from '../../../domain/console/permissions.js';
import { CONSOLE_ROLES, type ConsoleRole, type MemberRecord } from '../../../domain/console/ports.js';
import { DomainError, notFound } from '../../../domain/errors.js';
import { checkRelyingParty } from '../../../domain/policy/check-relying-party.js';
import { currentPolicy } from '../../../domain/policy/get-policy.js';
import { putPolicy } from '../../../domain/policy/put-policy.js';
import { resolvePolicy } from '../../../domain/policy/resolve-policy.js';
import type { ConsoleContext } from '../console-context.js';
import { when } from '../widgets.js';
import { KEY_CHANGES, type KeyScopes } from './key-changes.js';
import { keysStillWorking, memberKeysState } from './member-keys.js';
import { SETTINGS_CHANGES } from './settings-changes.js';
import { WEBHOOK_CHANGES } from './webhook-changes.js';

export interface ChangeResult {
  message: string;
  /** A new secret, shown once. */
  secret?: string;
  /** What the secret is, for its copy button ("the invite link"); "the new secret" otherwise. */
  secretLabel?: string;
  /** Where the page goes afterwards (the thing changed may be gone). */
  redirect?: string;
  /** A link shown with the secret (the page stays, so the secret can be copied). */
  link?: { href: string; text: string };
  /** Registration options for a new passkey of the member, made only after an existing one approved it. */
  registration?: Awaited<ReturnType<typeof startMemberPasskey>>;
}

export interface DangerousChange {
  /** What the role must be allowed to change; null for a member's own passkeys (every role). */
  permission: ConsolePermission | null;
  params: TSchema;
  /**
   * It hands out a secret (a key, an invite link, a signing secret): when it waits for approvers,
   * only the member who asked for it may apply it and see the secret
   * (docs/console.md#approvers-of-dangerous-changes).
   */
  returnsSecret?: true;
  /**
   * A key change: the scopes of the key it creates, rotates or revokes. Whoever asks for, approves
   * or applies it must be a member whose role may use every one of them (checkMemberKeyScopes).
   */
  keyScopes?(ctx: ConsoleContext, tenantId: string, target: string, params: never): Promise<KeyScopes>;
  /** The state before and after, as plain JSON (never a secret): shown, signed, and re-checked before applying. */
  describe(
    ctx: ConsoleContext,
    tenantId: string,
    target: string,
    params: never,
    member: MemberRecord,
  ): Promise<{ before: unknown; after: unknown }>;
  /**
   * Refuses unknown or foreign targets, what the member's role may not do, and parameters the
   * change would refuse, before any challenge is made.
   */
  check(
    ctx: ConsoleContext,
    tenantId: string,
    target: string,
    params: never,
    member: MemberRecord,
  ): Promise<void>;
  execute(
    ctx: ConsoleContext,
    tenantId: string,
    target: string,
    params: never,
    member: MemberRecord,
  ): Promise<ChangeResult>;
}

const NoParams = Type.Object({}, { additionalProperties: false });

async function checkMember(ctx: ConsoleContext, tenantId: string, target: string) {
  await activeMember(ctx, tenantId, target);
}

async function activeMember(ctx: ConsoleContext, tenantId: string, target: string) {
  const member = await ctx.deps.store.console.members.get(tenantId, target);
  if (!member || member.removedAt !== null) throw notFound('the member');
  return member;
}

/** The console's dangerous changes: each needs the member's passkey (docs/console.md). */
export const DANGEROUS_CHANGES: Record<string, DangerousChange> = {
  ...KEY_CHANGES,
  ...WEBHOOK_CHANGES,
  ...SETTINGS_CHANGES,
  'policy.change': {
    permission: 'policy',
    params: PolicyBody,
    check: async (_ctx, _tenantId, target, params) => {
      if (target !== 'policy') throw notFound('the policy');
      // Refused now, not after the member's passkey approved a change that cannot be saved.
      checkRelyingParty(params as PolicyBody);
    },
    describe: async (ctx, tenantId, _target, params: PolicyBody) => ({
      before: (await currentPolicy(ctx.deps, tenantId)).rules,
      after: resolvePolicy(params),
    }),
    execute: async (ctx, tenantId, _target, params: PolicyBody) => {
      const version = await putPolicy(ctx.deps, tenantId, params);
      return { message: `Policy version ${version.version} is in force.`, redirect: '/console/policy' };
    },
  },
  'member.invite': {
    permission: 'members',
    returnsSecret: true,
    params: Type.Object(
      { role: Type.Union(CONSOLE_ROLES.map((r) => Type.Literal(r))) },
      { additionalProperties: false },
    ),
    check: async (_ctx, _tenantId, target, params: { role: ConsoleRole }, member) => {
      if (target !== 'new') throw notFound('the invite to create');
      requireGrantableRole(member, params.role);
    },
    describe: async (_ctx, _tenantId, _target, params: { role: ConsoleRole }) => ({
      before: null,
      after: { invite: 'a new single-use invite link', role: params.role },
    }),
    execute: async (ctx, tenantId, _target, params: { role: ConsoleRole }, member) => {
      const input = { tenantId, role: params.role, createdBy: member.id };
      const { invite, inviteUrl } = await createInvite(ctx.deps, ctx.settings, input);
      return {
        message: `Invite link for a new ${invite.role}, valid until ${when(invite.expiresAt)}. Copy it now and send it only to that person: it is shown once.`,
        secret: inviteUrl,
        secretLabel: 'the invite link',
      };
    },
  },
  'member.passkey.start': {
    permission: null,
    params: NoParams,
    check: async (_ctx, _tenantId, target, _params, member) => {
      if (target !== member.id) {
        throw new DomainError('forbidden', 'a member adds passkeys only to itself');
      }
    },
    describe: async (_ctx, _tenantId, _target, _params, member) => ({
      before: { member: member.displayName },
      after: { member: member.displayName, passkeys: 'one more, made on the next step' },
    }),
    execute: async (ctx, _tenantId, _target, _params, member) => ({
      message: 'Your passkey approved it; now create the new passkey.',
      registration: await startMemberPasskey(ctx.deps, ctx.settings, member),
    }),
  },
  'member.remove': {
    permission: 'members',
    params: NoParams,
    check: checkMember,
    describe: async (ctx, tenantId, target) => {
      const m = await activeMember(ctx, tenantId, target);
      const keys = await memberKeysState(ctx, tenantId, m.id);
      return {
        before: { member: m.displayName, role: m.role, status: 'active', ...keys.before },
        after: { member: m.displayName, status: 'removed; sessions ended, passkeys revoked', ...keys.after },
      };
    },
    execute: async (ctx, tenantId, target) => {
      const member = await removeMember(ctx.deps, ctx.settings, tenantId, target);
      const { note, ...link } = await keysStillWorking(ctx, tenantId, member.id, member.displayName, null);
      return {
        message: `${member.displayName} was removed; their sessions ended and passkeys were revoked.${note}`,
        ...link,
      };
    },
  },
  'member.change-role': {
    permission: 'members',
    params: Type.Object(
      { role: Type.Union(CONSOLE_ROLES.map((r) => Type.Literal(r))) },
      { additionalProperties: false },
    ),
    check: checkMember,
    describe: async (ctx, tenantId, target, params: { role: ConsoleRole }) => {
      const m = await activeMember(ctx, tenantId, target);
      const keys = await memberKeysState(ctx, tenantId, m.id);
      return {
        before: { member: m.displayName, role: m.role, ...keys.before },
        after: { member: m.displayName, role: params.role, ...keys.after },
      };
    },
    execute: async (ctx, tenantId, target, params: { role: ConsoleRole }, changer) => {
      const { member, from } = await changeMemberRole(ctx.deps, changer, target, params.role);
      const { note, ...link } = await keysStillWorking(
        ctx,
        tenantId,
        member.id,
        member.displayName,
        member.role,
      );
      return { message: `${member.displayName} is now ${member.role} (was ${from}).${note}`, ...link };
    },
  },
};

/** The kind's definition and its validated parameters, or a problem naming the wrong field. */
export function resolveChange(
  kind: string,
  params: unknown,
): { change: DangerousChange; params: Record<string, unknown> } {
  // Own members only: `__proto__`, `constructor` or `toString` are unknown kinds, not Object's.
  const change = Object.hasOwn(DANGEROUS_CHANGES, kind) ? DANGEROUS_CHANGES[kind] : undefined;
  if (!change)
    throw new DomainError('invalid_request', `unknown change ${kind}`, [
      { field: '/kind', message: 'unknown' },
    ]);
  const errors = [...Value.Errors(change.params, params)];
  if (errors.length > 0) {
    const fields = errors.map((e) => ({ field: `/params${e.path}`, message: e.message }));
    throw new DomainError(
      'invalid_request',
      fields.map((f) => `${f.field}: ${f.message}`).join('; '),
      fields,
    );
  }
  return { change, params: params as Record<string, unknown> };
}
