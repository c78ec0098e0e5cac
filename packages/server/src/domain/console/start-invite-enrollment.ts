import type { Deps } from '../deps.js';
import { createRegistrationOptions } from '../credentials/create-registration-options.js';
import { consolePasskeyUserName, memberSubject, type ConsoleSettings } from './console-settings.js';
import { findOpenInvite } from './find-open-invite.js';

/**
 * The passkey ceremony of an invite: registration options in the console tenant for the subject of
 * the member the invite will create (the same domain function as POST /v1/presence/credentials/options).
 */
export async function startInviteEnrollment(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'consoleTenantId'>,
  input: { token: string; displayName: string },
) {
  const invite = await findOpenInvite(deps, input.token);
  return createRegistrationOptions(deps, settings.consoleTenantId, {
    subject: memberSubject(invite.memberId),
    displayName: input.displayName,
    userName: consolePasskeyUserName(input.displayName),
  });
}
