import { SCOPES, type Scope } from '@presence/contract';
import { Type } from '@sinclair/typebox';
import { getApiKey, revokeApiKey, rotateApiKey } from '../../../domain/api-keys/manage-api-keys.js';
import {
  checkMemberKeyScopes,
  createMemberKey,
  type MemberKeyInput,
} from '../../../domain/console/create-member-key.js';
import { scopesOfRole } from '../../../domain/console/permissions.js';
import type { MemberRecord } from '../../../domain/console/ports.js';
import { DomainError, notFound } from '../../../domain/errors.js';
import type { ConsoleContext } from '../console-context.js';
import type { DangerousChange } from './dangerous-changes.js';

/** The target of a key that does not exist yet. */
export const NEW_KEY_TARGET = 'new';

export const KeyParams = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100 }),
    scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { uniqueItems: true }),
  },
  { additionalProperties: false },
);

/** The key a change creates, rotates or revokes: who takes part must be allowed its every scope. */
export interface KeyScopes {
  scopes: readonly Scope[];
  verb: 'create' | 'rotate' | 'revoke';
}

/** The scopes of an existing key of the tenant. */
function scopesOfKey(verb: 'rotate' | 'revoke') {
  return async (ctx: ConsoleContext, tenantId: string, target: string): Promise<KeyScopes> => ({
    scopes: (await getApiKey(ctx.deps, tenantId, target)).scopes,
    verb,
  });
}

/** A live key of the tenant whose every scope the member's role may use. */
function checkKey(verb: 'rotate' | 'revoke') {
  return async (ctx: ConsoleContext, tenantId: string, target: string, _p: never, member: MemberRecord) => {
    const key = await getApiKey(ctx.deps, tenantId, target);
    if (key.revokedAt !== null) throw new DomainError('conflict', 'this API key is already revoked');
    checkMemberKeyScopes(member, key.scopes, verb);
  };
}

/** What the key is, for before and after (never its secret). */
async function keyState(ctx: ConsoleContext, tenantId: string, target: string) {
  const key = await getApiKey(ctx.deps, tenantId, target);
  return { key: key.name, prefix: `${key.prefix}…`, scopes: key.scopes, revoked: key.revokedAt !== null };
}

/** The console's key changes that need the member's passkey (docs/security.md). */
export const KEY_CHANGES: Record<string, DangerousChange> = {
  'api-key.create': {
    permission: 'keys',
    params: KeyParams,
    returnsSecret: true,
    keyScopes: async (_ctx, _tenantId, _target, params: MemberKeyInput) => ({
      scopes: params.scopes,
      verb: 'create',
    }),
    check: async (_ctx, _tenantId, target, params: MemberKeyInput, member) => {
      if (target !== NEW_KEY_TARGET) throw notFound('the key to create');
      checkMemberKeyScopes(member, params.scopes, 'create');
    },
    describe: async (_ctx, _tenantId, _target, params: MemberKeyInput) => ({
      before: null,
      after: { key: params.name, scopes: params.scopes, secret: 'a new secret' },
    }),
    execute: async (ctx, _tenantId, _target, params: MemberKeyInput, member) => {
      const { key, secret } = await createMemberKey(ctx.deps, member, params, true);
      return {
        message: `API key ${key.name} (${key.prefix}…) was created with ${key.scopes.join(', ')}. Copy the secret now: it is shown only once.`,
        secret,
      };
    },
  },
  'api-key.revoke': {
    permission: 'keys',
    params: Type.Object({}, { additionalProperties: false }),
    keyScopes: scopesOfKey('revoke'),
    check: checkKey('revoke'),
    describe: async (ctx, tenantId, target) => {
      const before = await keyState(ctx, tenantId, target);
      return { before, after: { ...before, revoked: true } };
    },
    execute: async (ctx, tenantId, target, _params, member) => {
      const key = await revokeApiKey(ctx.deps, tenantId, target, scopesOfRole(member.role));
      return { message: `API key ${key.name} (${key.prefix}…) is revoked.` };
    },
  },
  'api-key.rotate': {
    permission: 'keys',
    params: Type.Object(
      { graceSeconds: Type.Integer({ minimum: 0, maximum: 30 * 86400 }) },
      { additionalProperties: false },
    ),
    returnsSecret: true,
    keyScopes: scopesOfKey('rotate'),
    check: checkKey('rotate'),
    describe: async (ctx, tenantId, target, params: { graceSeconds: number }) => {
      const before = await keyState(ctx, tenantId, target);
      const after = { ...before, secret: 'a new secret', oldSecretWorksForSeconds: params.graceSeconds };
      return { before: { ...before, secret: 'the current secret' }, after };
    },
    execute: async (ctx, tenantId, target, params: { graceSeconds: number }, member) => {
      const grantor = scopesOfRole(member.role);
      const grace = params.graceSeconds;
      const rotated = await rotateApiKey(ctx.deps, tenantId, target, grace, grantor, member.id);
      return {
        message: `API key ${rotated.key.name} was rotated; the old secret works until ${rotated.previous.expiresAt ?? 'now'}. Copy the new secret now: it is shown only once.`,
        secret: rotated.secret,
      };
    },
  },
};
