import type { AuditActor, AuditContext } from './ports.js';

/** The deps of one request or command, with who is acting (the door sets it once). */
export function withAudit<D extends object>(deps: D, context: AuditContext): D & { audit: AuditContext } {
  return { ...deps, audit: context };
}

/**
 * The same deps with nobody acting: for writes to the console's own tenant (member passkeys,
 * sign-in challenges), which are recorded as the member's change in the member's tenant instead.
 */
export function withoutAudit<D extends object>(deps: D): D & { audit: undefined } {
  return { ...deps, audit: undefined };
}

export const OPERATOR_ACTOR: AuditActor = { type: 'operator', id: 'operator', name: 'operator API' };
export const CLI_ACTOR: AuditActor = { type: 'cli', id: 'cli', name: 'presence CLI' };
