import { PolicyBody } from '@presence/contract';
import { Type, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { getApiKey, revokeApiKey, rotateApiKey } from '../../../domain/api-keys/manage-api-keys.js';
import { OWNER_SCOPES } from '../../../domain/api-keys/check-grantable-scopes.js';
import { changeMemberRole } from '../../../domain/console/change-member-role.js';
import { removeMember } from '../../../domain/console/manage-members.js';
import { CONSOLE_ROLES, type ConsoleRole, type MemberRecord } from '../../../domain/console/ports.js';
import type { ConsolePermission } from '../../../domain/console/permissions.js';
import { DomainError, notFound } from '../../../domain/errors.js';
import { putPolicy } from '../../../domain/policy/put-policy.js';
import {
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  rotateWebhookSecret,
} from '../../../domain/webhooks/manage-webhook-endpoints.js';
import type { ConsoleContext } from '../console-context.js';

export interface ChangeResult {
  message: string;
  /** A new secret, shown once. */
  secret?: string;
  /** Where the page goes afterwards (the thing changed may be gone). */
  redirect?: string;
}

interface DangerousChange {
  permission: ConsolePermission;
  params: TSchema;
  /** Refuses unknown or foreign targets before any challenge is made. */
  check(ctx: ConsoleContext, tenantId: string, target: string): Promise<void>;
  /** `member`: who approved it with their passkey. */
  execute(
    ctx: ConsoleContext,
    tenantId: string,
    target: string,
    params: never,
    member: MemberRecord,
  ): Promise<ChangeResult>;
}

const NoParams = Type.Object({}, { additionalProperties: false });
const Seconds = (max: number) => Type.Integer({ minimum: 0, maximum: max });

async function checkKey(ctx: ConsoleContext, tenantId: string, target: string) {
  const key = await getApiKey(ctx.deps, tenantId, target);
  if (key.revokedAt !== null) throw new DomainError('conflict', 'this API key is already revoked');
}

async function checkEndpoint(ctx: ConsoleContext, tenantId: string, target: string) {
  await getWebhookEndpoint(ctx.deps, tenantId, target);
}

async function checkMember(ctx: ConsoleContext, tenantId: string, target: string) {
  const member = await ctx.deps.store.console.members.get(tenantId, target);
  if (!member || member.removedAt !== null) throw notFound('the member');
}

/** The console's dangerous changes: each needs the member's passkey (docs/console.md). */
export const DANGEROUS_CHANGES: Record<string, DangerousChange> = {
  'api-key.revoke': {
    permission: 'keys',
    params: NoParams,
    check: checkKey,
    execute: async (ctx, tenantId, target) => {
      const key = await revokeApiKey(ctx.deps, tenantId, target, OWNER_SCOPES);
      return { message: `API key ${key.name} (${key.prefix}…) is revoked.` };
    },
  },
  'api-key.rotate': {
    permission: 'keys',
    params: Type.Object({ graceSeconds: Seconds(30 * 86400) }, { additionalProperties: false }),
    check: checkKey,
    execute: async (ctx, tenantId, target, params: { graceSeconds: number }) => {
      const rotated = await rotateApiKey(ctx.deps, tenantId, target, params.graceSeconds, OWNER_SCOPES);
      return {
        message: `API key ${rotated.key.name} was rotated; the old secret works until ${rotated.previous.expiresAt ?? 'now'}. Copy the new secret now: it is shown only once.`,
        secret: rotated.secret,
      };
    },
  },
  'webhook.delete': {
    permission: 'webhooks',
    params: NoParams,
    check: checkEndpoint,
    execute: async (ctx, tenantId, target) => {
      await deleteWebhookEndpoint(ctx.deps, tenantId, target);
      return { message: 'The webhook endpoint was deleted.', redirect: '/console/webhooks' };
    },
  },
  'webhook.rotate-secret': {
    permission: 'webhooks',
    params: Type.Object({ overlapSeconds: Seconds(7 * 86400) }, { additionalProperties: false }),
    check: checkEndpoint,
    execute: async (ctx, tenantId, target, params: { overlapSeconds: number }) => {
      const rotated = await rotateWebhookSecret(ctx.deps, tenantId, target, params.overlapSeconds);
      return {
        message: 'The signing secret was rotated. Copy the new secret now: it is shown only once.',
        secret: rotated.secret,
      };
    },
  },
  'policy.change': {
    permission: 'policy',
    params: PolicyBody,
    check: async (_ctx, _tenantId, target) => {
      if (target !== 'policy') throw notFound('the policy');
    },
    execute: async (ctx, tenantId, _target, params: PolicyBody) => {
      const version = await putPolicy(ctx.deps, tenantId, params);
      return { message: `Policy version ${version.version} is in force.`, redirect: '/console/policy' };
    },
  },
  'member.remove': {
    permission: 'members',
    params: NoParams,
    check: checkMember,
    execute: async (ctx, tenantId, target) => {
      const member = await removeMember(ctx.deps, ctx.settings, tenantId, target);
      return {
        message: `${member.displayName} was removed; their sessions ended and passkeys were revoked.`,
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
    execute: async (ctx, _tenantId, target, params: { role: ConsoleRole }, changer) => {
      const { member, from } = await changeMemberRole(ctx.deps, changer, target, params.role);
      return { message: `${member.displayName} is now ${member.role} (was ${from}).` };
    },
  },
};

/** The kind's definition and its validated parameters, or a problem naming the wrong field. */
export function resolveChange(
  kind: string,
  params: unknown,
): { change: DangerousChange; params: Record<string, unknown> } {
  const change = DANGEROUS_CHANGES[kind];
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
