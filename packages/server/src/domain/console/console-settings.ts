import { computeActionHashSync } from '@presence/sdk/node';
import { DomainError } from '../errors.js';

/** How the console is set up; made once by compose.ts (see docs/adr/0011-console-passkeys.md). */
export interface ConsoleSettings {
  /**
   * The service's own internal tenant: its policy is the console's origin, its credentials are the
   * members' passkeys (subject `console:<memberId>`), its receipts are the members' sign-ins and
   * approvals. Keeping them out of the customer tenant keeps them out of its usage, quota and webhooks.
   */
  consoleTenantId: string;
  /** Public origin of the console (invite links, the WebAuthn origin its passkeys are bound to). */
  origin: string;
  inviteTtlMs: number;
  sessionIdleMs: number;
  sessionAbsoluteMs: number;
}

export const CONSOLE_TENANT_NAME = 'presence-console';

export const DEFAULT_CONSOLE_TIMES = {
  inviteTtlMs: 7 * 24 * 3600_000,
  sessionIdleMs: 30 * 60_000,
  sessionAbsoluteMs: 12 * 3600_000,
};

const SUBJECT_PREFIX = 'console:';

/** The presence subject of a member's passkeys in the console tenant. */
export function memberSubject(memberId: string): string {
  return SUBJECT_PREFIX + memberId;
}

export function memberIdOfSubject(subject: string): string | undefined {
  return subject.startsWith(SUBJECT_PREFIX) ? subject.slice(SUBJECT_PREFIX.length) : undefined;
}

/** Every sign-in challenge commits to this action; the challenge's own nonce makes each one fresh. */
export const SIGN_IN_ACTION = { type: 'presence.console.sign-in', version: 1 } as const;
export const SIGN_IN_ACTION_HASH_HEX = computeActionHashSync(SIGN_IN_ACTION);

/** What a member's passkey is called in the browser's passkey list ("Presence console — Dana"). */
export function consolePasskeyUserName(displayName: string): string {
  return `Presence console — ${displayName}`;
}

/**
 * The sign-in refusal for a passkey the console does not know (the demo's, another site's on
 * localhost, or a removed member's). The field names the assertion's id, so the page can tell
 * the browser (WebAuthn signal API) that this passkey is unknown here.
 */
export function unknownConsolePasskey(decision: 'CREDENTIAL_NOT_FOUND' | 'CREDENTIAL_REVOKED'): DomainError {
  const what =
    decision === 'CREDENTIAL_REVOKED'
      ? 'this passkey was removed from the Presence console (CREDENTIAL_REVOKED)'
      : 'this passkey is not a Presence console passkey (CREDENTIAL_NOT_FOUND: it may be the demo’s, or another site’s on this host)';
  return new DomainError(
    'forbidden',
    `${what}. Sign in again and pick the passkey named “Presence console — <your name>”; if you have none, ask an owner for an invite. Nothing was changed.`,
    [{ field: '/assertion/id', message: 'unknown console passkey' }],
  );
}

/** The refusal shown when a presence check of the console did not end in PRESENCE_VERIFIED. */
export function presenceRefused(decision: string, reason: string | undefined): DomainError {
  return new DomainError(
    'forbidden',
    `the passkey check was refused (${decision}${reason ? `: ${reason}` : ''}); nothing was changed`,
  );
}
