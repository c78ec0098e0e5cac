import type { Scope } from '@presence/contract';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { memberSubject } from './console-settings.js';
import { mayChange, scopesBeyondRole, type ConsolePermission } from './permissions.js';
import type { MemberRecord } from './ports.js';

/** How many members may be required to approve a dangerous console change. */
export const QUORUM_CHOICES = [1, 2, 3] as const;
/** The most approvers one approval lists (docs/api-contract.md#13-approvals). */
const MAX_APPROVERS = 20;

/** Approvers required for the tenant's dangerous console changes (1 unless an owner chose 2 or 3). */
export async function consoleQuorum(deps: Pick<Deps, 'store'>, tenantId: string): Promise<number> {
  return (await deps.store.console.quorum.get(tenantId)) ?? 1;
}

/** Sets it (itself a dangerous change, approved by the current quorum); audited with its before and after. */
export async function setConsoleQuorum(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  tenantId: string,
  required: number,
  by: MemberRecord,
): Promise<{ from: number; to: number }> {
  if (!(QUORUM_CHOICES as readonly number[]).includes(required)) {
    throw new DomainError('invalid_request', 'approvers required must be 1, 2 or 3', [
      { field: '/params/required', message: 'must be 1, 2 or 3' },
    ]);
  }
  return deps.store.transaction(async (tx) => {
    const from = (await tx.console.quorum.get(tenantId)) ?? 1;
    await tx.console.quorum.put(tenantId, required, deps.clock.now(), by.id);
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'console_settings.changed',
      target: { type: 'console_settings', id: tenantId, name: 'approvers of dangerous changes' },
      detail: { approversRequired: { from, to: required } },
    });
    return { from, to: required };
  });
}

/**
 * Whether `member` may approve (or still count as an approver of) a change needing `permission`
 * and, for a key change, touching a key with `keyScopes`: an active member whose role holds the
 * permission and may use every one of those scopes.
 */
export function mayApprove(
  member: MemberRecord,
  permission: ConsolePermission | null,
  keyScopes: readonly Scope[] = [],
): boolean {
  if (member.removedAt !== null) return false;
  if (permission !== null && !mayChange(member.role, permission)) return false;
  return scopesBeyondRole(member.role, keyScopes).length === 0;
}

/**
 * Who may approve a change needing `permission` (and, for a key change, the key's scopes): every
 * member `mayApprove` accepts, the requester first (their passkey approval is the first one). A 409
 * naming how many are needed and who can approve when there are fewer than `required`.
 */
export async function eligibleApprovers(
  deps: Pick<Deps, 'store'>,
  requester: MemberRecord,
  permission: ConsolePermission,
  required: number,
  keyScopes: readonly Scope[] = [],
): Promise<MemberRecord[]> {
  const members = await deps.store.console.members.list(requester.tenantId);
  const eligible = members
    .filter((m) => mayApprove(m, permission, keyScopes))
    .sort((a, b) => Number(b.id === requester.id) - Number(a.id === requester.id))
    .slice(0, MAX_APPROVERS);
  if (eligible.length < required) {
    const who = eligible.map((m) => `${m.displayName} (${m.role})`).join(', ') || 'nobody';
    throw new DomainError(
      'conflict',
      `this change needs ${required} approvers whose role may change ${permission}${keyScopes.length > 0 ? ` and use ${keyScopes.join(', ')}` : ''}, and the tenant has ${eligible.length}: ${who}. Invite another member with that right (an operator can too: presence console invite), or have an owner lower the approvers required; nothing was changed`,
    );
  }
  return eligible;
}

export function approverSubjects(members: MemberRecord[]): string[] {
  return members.map((m) => memberSubject(m.id));
}
