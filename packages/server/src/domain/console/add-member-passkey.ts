import type { RegisterCredentialBody } from '@presence/contract';
import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { createRegistrationOptions } from '../credentials/create-registration-options.js';
import { registerCredential } from '../credentials/register-credential.js';
import { consolePasskeyUserName, memberSubject, type ConsoleSettings } from './console-settings.js';
import type { MemberRecord } from './ports.js';
import { recordAuditEvent } from '../audit/record-audit-event.js';
import { withoutAudit } from '../audit/with-audit.js';
import { asMember } from './record-audit.js';

/**
 * Step 1 of enrolling another passkey for the signed-in member (a second device, a backup key),
 * run only after a passkey the member already has approved it: its audit event carries that
 * approval's receipt (from `deps.audit`).
 */
export async function startMemberPasskey(
  deps: Pick<Deps, 'store' | 'clock' | 'random' | 'audit'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  member: MemberRecord,
) {
  const options = await createRegistrationOptions(deps, settings.consoleTenantId, {
    subject: memberSubject(member.id),
    displayName: member.displayName,
    userName: consolePasskeyUserName(member.displayName),
  });
  await deps.store.transaction((tx) =>
    recordAuditEvent(deps, tx, {
      tenantId: member.tenantId,
      action: 'member_passkey.add_started',
      target: { type: 'member', id: member.id, name: member.displayName },
      detail: { registrationId: options.registrationId },
    }),
  );
  return options;
}

/** Step 2: registers it, only for a ceremony this member started. */
export async function addMemberPasskey(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  member: MemberRecord,
  input: RegisterCredentialBody & { deviceName?: string | undefined },
) {
  const registration = await deps.store.registrations.get(settings.consoleTenantId, input.registrationId);
  if (!registration || registration.subject !== memberSubject(member.id)) {
    throw new DomainError('invalid_request', 'the passkey ceremony was not started by you', [
      { field: '/registrationId', message: 'not your ceremony' },
    ]);
  }
  const { deviceName, ...body } = input;
  const credential = await registerCredential(withoutAudit(deps), settings.consoleTenantId, body);
  const name = deviceName?.trim() || undefined;
  await deps.store.transaction(async (tx) => {
    if (name !== undefined) {
      const at = deps.clock.now();
      await tx.console.passkeyNames.put({
        credentialRef: credential.id,
        tenantId: member.tenantId,
        memberId: member.id,
        name,
        at,
      });
    }
    await recordAuditEvent(asMember(deps, member), tx, {
      tenantId: member.tenantId,
      action: 'member_passkey.added',
      target: { type: 'member', id: member.id, name: member.displayName },
      detail: { credentialId: credential.id, name: name ?? null },
    });
  });
  return credential;
}
