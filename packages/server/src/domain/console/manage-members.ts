import type { Credential } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError, notFound } from '../errors.js';
import { listCredentials, revokeCredential, revokeCredentialIn } from '../credentials/manage-credentials.js';
import { memberSubject, type ConsoleSettings } from './console-settings.js';
import type { MemberRecord } from './ports.js';

/** A member's active console passkeys (credentials of the console tenant). */
export async function listMemberPasskeys(
  deps: Pick<Deps, 'store'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  memberId: string,
): Promise<Credential[]> {
  const page = await listCredentials(
    deps,
    settings.consoleTenantId,
    { subject: memberSubject(memberId), includeRevoked: false },
    { limit: 100 },
  );
  return page.items;
}

/** Removes a member of the tenant: its sessions end and its passkeys are revoked. */
export async function removeMember(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  tenantId: string,
  memberId: string,
): Promise<MemberRecord> {
  const member = await deps.store.console.members.get(tenantId, memberId);
  if (!member || member.removedAt !== null) throw notFound('the member');
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    // The last-owner rule is checked where the removal is written, so concurrent removals of
    // two owners cannot both pass it.
    const outcome = await tx.console.members.removeKeepingAnOwner(tenantId, memberId, now);
    if (outcome === 'not_found') throw notFound('the member');
    if (outcome === 'last_owner') {
      throw new DomainError('conflict', 'the last owner cannot be removed; invite another owner first');
    }
    await tx.console.sessions.revokeAllOfMember(memberId, now);
  });
  for (const passkey of await listMemberPasskeys(deps, settings, memberId)) {
    await revokeCredential(deps, settings.consoleTenantId, passkey.id);
  }
  return member;
}

/**
 * Revokes one passkey of a member of the tenant (never another tenant's), never the member's last:
 * the count and the revocation run in one transaction holding the member's row, so two removals
 * of a member's two passkeys at once cannot both pass the count.
 */
export async function removeMemberPasskey(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  tenantId: string,
  input: { memberId: string; credentialId: string },
): Promise<Credential> {
  return deps.store.transaction(async (tx) => {
    if (!(await tx.console.members.lock(tenantId, input.memberId))) throw notFound('the passkey');
    const filter = { subject: memberSubject(input.memberId), includeRevoked: false };
    const passkeys = await tx.credentials.list(settings.consoleTenantId, filter, { limit: 100 });
    if (!passkeys.some((p) => p.id === input.credentialId)) throw notFound('the passkey');
    if (passkeys.length <= 1) {
      throw new DomainError(
        'conflict',
        "a member's last passkey cannot be removed; remove the member instead",
      );
    }
    return revokeCredentialIn(deps, tx, settings.consoleTenantId, input.credentialId);
  });
}
