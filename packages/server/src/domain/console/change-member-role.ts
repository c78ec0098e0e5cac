import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { CONSOLE_ROLES, type ConsoleRole, type MemberRecord } from './ports.js';

/** 0 is the most powerful (owner), as CONSOLE_ROLES lists them. */
const rank = (role: ConsoleRole) => CONSOLE_ROLES.indexOf(role);

/**
 * Changes another member's role. Never above the changer's own role, never for a member above
 * it, never the changer's own (another member does that), and never the last owner's. A
 * compare-and-set on the old role, so two concurrent changes cannot both apply.
 */
export async function changeMemberRole(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  changer: MemberRecord,
  memberId: string,
  role: ConsoleRole,
): Promise<{ member: MemberRecord; from: ConsoleRole }> {
  const tenantId = changer.tenantId;
  const member = await deps.store.console.members.get(tenantId, memberId);
  if (!member || member.removedAt !== null) throw notFound('the member');
  if (member.id === changer.id) {
    throw new DomainError('forbidden', 'you cannot change your own role; ask another owner');
  }
  if (rank(role) < rank(changer.role) || rank(member.role) < rank(changer.role)) {
    throw new DomainError(
      'forbidden',
      `a ${changer.role} may not give or change a role above ${changer.role}`,
    );
  }
  if (member.role === role) return { member, from: role };
  await deps.store.transaction(async (tx) => {
    // Counted under the tenant's lock, so two owners demoting each other at once leave one owner.
    if (member.role === 'owner' && (await tx.console.members.lockOwners(tenantId)) <= 1) {
      throw new DomainError('conflict', 'the last owner keeps the owner role');
    }
    if (!(await tx.console.members.setRole(tenantId, memberId, member.role, role))) {
      throw new DomainError('conflict', 'the member’s role was changed meanwhile; reload and try again');
    }
    await recordAuditEvent(deps, tx, {
      tenantId,
      action: 'member.role_changed',
      target: { type: 'member', id: member.id, name: member.displayName },
      detail: { from: member.role, to: role },
    });
  });
  return { member: { ...member, role }, from: member.role };
}
