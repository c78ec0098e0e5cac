import { Type } from '@sinclair/typebox';
import { consoleQuorum, QUORUM_CHOICES, setConsoleQuorum } from '../../../domain/console/console-quorum.js';
import { DomainError, notFound } from '../../../domain/errors.js';
import type { DangerousChange } from './dangerous-changes.js';

/** The target of the tenant's console settings. */
export const APPROVERS_TARGET = 'approvers';

/**
 * How many members approve a dangerous change: itself one, so raising or lowering it needs the
 * approvers the tenant requires now. Owners only (`members`).
 */
export const SETTINGS_CHANGES: Record<string, DangerousChange> = {
  'settings.approvers': {
    permission: 'members',
    params: Type.Object(
      { required: Type.Union(QUORUM_CHOICES.map((n) => Type.Literal(n))) },
      { additionalProperties: false },
    ),
    check: async (ctx, tenantId, target, params: { required: number }) => {
      if (target !== APPROVERS_TARGET) throw notFound('the setting');
      // More approvers than owners would lock every dangerous change (owner changes among them).
      const owners = (await ctx.deps.store.console.members.list(tenantId)).filter((m) => m.role === 'owner');
      if (params.required > owners.length) {
        throw new DomainError(
          'conflict',
          `the tenant has ${owners.length} owner${owners.length === 1 ? '' : 's'}: at most ${owners.length} approvers can be required; invite another owner first`,
          [{ field: '/params/required', message: `more than the ${owners.length} owners` }],
        );
      }
    },
    describe: async (ctx, tenantId, _target, params: { required: number }) => ({
      before: { approversRequired: await consoleQuorum(ctx.deps, tenantId) },
      after: { approversRequired: params.required },
    }),
    execute: async (ctx, tenantId, _target, params: { required: number }, member) => {
      const { to } = await setConsoleQuorum(ctx.deps, tenantId, params.required, member);
      return { message: `Dangerous changes now need ${to} approver${to === 1 ? '' : 's'}.` };
    },
  },
};
