import type { Deps } from '../deps.js';
import { DomainError } from '../errors.js';
import { sha256Hex } from '../encoding.js';
import type { InviteRecord } from './ports.js';

/** The unused, unexpired invite of a token; otherwise a refusal that says which. */
export async function findOpenInvite(
  deps: Pick<Deps, 'store' | 'clock'>,
  token: string,
): Promise<InviteRecord> {
  const invite = await deps.store.console.invites.findByTokenHash(sha256Hex(token));
  if (!invite)
    throw new DomainError('not_found', 'this invite link is not valid; ask an owner for a new one');
  if (invite.usedAt !== null) {
    throw new DomainError('conflict', 'this invite link was already used; ask an owner for a new one');
  }
  if (invite.expiresAt <= deps.clock.now()) {
    throw new DomainError('conflict', 'this invite link has expired; ask an owner for a new one');
  }
  return invite;
}
