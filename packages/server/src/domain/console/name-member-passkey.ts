import { recordAuditEvent } from '../audit/record-audit-event.js';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import type { ConsoleSettings } from './console-settings.js';
import { listMemberPasskeys } from './manage-members.js';
import type { MemberRecord } from './ports.js';

/**
 * Names one of a member's console passkeys by its device ("MacBook Touch ID"). A member names
 * their own passkeys; an owner (permission `members`, checked by the route) anyone's in the tenant.
 */
export async function nameMemberPasskey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  changer: MemberRecord,
  input: { memberId: string; credentialId: string; name: string; mayNameOthers: boolean },
): Promise<void> {
  const name = input.name.trim();
  if (name.length === 0) {
    throw new DomainError('invalid_request', 'give the passkey a name', [
      { field: '/name', message: 'empty' },
    ]);
  }
  if (input.memberId !== changer.id && !input.mayNameOthers) {
    throw new DomainError('forbidden', 'only owners may name another member’s passkeys');
  }
  const member = await deps.store.console.members.get(changer.tenantId, input.memberId);
  const passkeys =
    member && member.removedAt === null ? await listMemberPasskeys(deps, settings, member.id) : [];
  if (!member || !passkeys.some((p) => p.id === input.credentialId)) throw notFound('the passkey');
  await deps.store.transaction(async (tx) => {
    await tx.console.passkeyNames.put({
      credentialRef: input.credentialId,
      tenantId: member.tenantId,
      memberId: member.id,
      name,
      at: deps.clock.now(),
    });
    await recordAuditEvent(deps, tx, {
      tenantId: member.tenantId,
      action: 'member_passkey.named',
      target: { type: 'member', id: member.id, name: member.displayName },
      detail: { credentialId: input.credentialId, name },
    });
  });
}
