import type { RegisterCredentialBody } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { registerCredential } from '../credentials/register-credential.js';
import { revokeCredential } from '../credentials/manage-credentials.js';
import { memberSubject, type ConsoleSettings } from './console-settings.js';
import { findOpenInvite } from './find-open-invite.js';
import type { MemberRecord } from './ports.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { asMember } from './record-audit.js';
import { createSession, type CreatedSession } from './create-session.js';

export interface AcceptInviteInput {
  token: string;
  displayName: string;
  registrationId: string;
  credential: RegisterCredentialBody['credential'];
  /** What the member calls this passkey ("Chrome on macOS"), if the page sent a name. */
  deviceName?: string | undefined;
}

/**
 * Completes an invite: the passkey is registered first (a failed ceremony leaves the invite
 * usable), then the invite is consumed and the member created together; a lost race revokes the
 * passkey it just registered. Returns the member's first session.
 */
export async function acceptInvite(
  deps: Deps,
  settings: ConsoleSettings,
  input: AcceptInviteInput,
): Promise<{ member: MemberRecord; session: CreatedSession }> {
  const invite = await findOpenInvite(deps, input.token);
  const registration = await deps.store.registrations.get(settings.consoleTenantId, input.registrationId);
  if (!registration || registration.subject !== memberSubject(invite.memberId)) {
    throw new DomainError('invalid_request', 'the passkey ceremony was not started for this invite', [
      { field: '/registrationId', message: 'not a ceremony of this invite' },
    ]);
  }
  const credential = await registerCredential(deps, settings.consoleTenantId, {
    registrationId: input.registrationId,
    credential: input.credential,
  });
  const now = deps.clock.now();
  const member: MemberRecord = {
    id: invite.memberId,
    tenantId: invite.tenantId,
    displayName: input.displayName,
    role: invite.role,
    createdAt: now,
    removedAt: null,
  };
  const joined = await deps.store.transaction(async (tx) => {
    if (!(await tx.console.invites.consume(invite.id, now))) return false;
    await tx.console.members.insert(member);
    const deviceName = input.deviceName?.trim();
    if (deviceName) {
      await tx.console.passkeyNames.put({
        credentialRef: credential.id,
        tenantId: member.tenantId,
        memberId: member.id,
        name: deviceName,
        at: now,
      });
    }
    await recordAuditEvent(asMember(deps, member), tx, {
      tenantId: member.tenantId,
      action: 'member.joined',
      target: { type: 'member', id: member.id, name: member.displayName },
      detail: { role: member.role, inviteId: invite.id, credentialId: credential.id },
    });
    return true;
  });
  if (!joined) {
    await revokeCredential(deps, settings.consoleTenantId, credential.id);
    throw new DomainError('conflict', 'this invite link was already used; ask an owner for a new one');
  }
  return { member, session: await createSession(deps, settings, member) };
}
