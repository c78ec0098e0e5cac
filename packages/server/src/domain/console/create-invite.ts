import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { newId } from '../ids.js';
import { sha256Hex } from '../encoding.js';
import type { ConsoleSettings } from './console-settings.js';
import { requireGrantableRole, requirePermission } from './permissions.js';
import type { ConsoleRole, InviteRecord } from './ports.js';

export interface CreatedInvite {
  invite: InviteRecord;
  /** The link that carries the token: shown once, stored only as a hash. */
  inviteUrl: string;
}

/**
 * A single-use invite for a new member of the tenant with the given role. An invite made by a
 * member (not by the operator's CLI) needs the `members` permission and gives no role that may
 * change more than the inviter's own.
 */
export async function createInvite(
  deps: Pick<Deps, 'store' | 'clock' | 'random'>,
  settings: Pick<ConsoleSettings, 'origin' | 'inviteTtlMs'>,
  input: { tenantId: string; role: ConsoleRole; createdBy: string | null },
): Promise<CreatedInvite> {
  if (!(await deps.store.tenants.get(input.tenantId))) {
    throw new DomainError('not_found', `no tenant ${input.tenantId}`);
  }
  if (input.createdBy !== null) {
    const inviter = await deps.store.console.members.get(input.tenantId, input.createdBy);
    if (!inviter || inviter.removedAt !== null) {
      throw new DomainError('forbidden', 'only a member of the tenant may invite to it');
    }
    requirePermission(inviter, 'members');
    requireGrantableRole(inviter, input.role);
  }
  const token = deps.random.bytes(32).toString('base64url');
  const now = deps.clock.now();
  const invite: InviteRecord = {
    id: newId(deps, 'cin'),
    tenantId: input.tenantId,
    tokenHash: sha256Hex(token),
    role: input.role,
    memberId: newId(deps, 'mem'),
    createdBy: input.createdBy,
    createdAt: now,
    expiresAt: now + settings.inviteTtlMs,
    usedAt: null,
  };
  await deps.store.console.invites.insert(invite);
  return { invite, inviteUrl: `${settings.origin}/console/invite/${token}` };
}
