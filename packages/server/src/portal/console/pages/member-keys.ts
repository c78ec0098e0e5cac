import { scopesBeyondRole } from '../../../domain/console/permissions.js';
import { workingKeysOfMember, type MemberKeys } from '../../../domain/console/key-creators.js';
import type { ConsoleRole } from '../../../domain/console/ports.js';
import type { ConsoleContext } from '../console-context.js';
import type { ChangeResult } from './dangerous-changes.js';

/** What the after says of those keys: they are not revoked. */
const KEYS_KEEP_WORKING = 'still working: rotate or revoke them on the API keys page';

/**
 * The working keys a member created, for the before and after of its removal or role change: the
 * approvers see them (names and ids, the first 20) and sign for them; the after says they keep
 * working. Nothing when there are none, so a change asked for before this field existed still
 * compares equal when it is applied.
 */
export async function memberKeysState(
  ctx: ConsoleContext,
  tenantId: string,
  memberId: string,
): Promise<{ before: object; after: object }> {
  const { working, keys } = await workingKeysOfMember(ctx.deps, tenantId, memberId);
  if (working === 0) return { before: {}, after: {} };
  const keysTheyCreated = { working, keys: keys.map(({ keyId, name }) => ({ keyId, name })) };
  return {
    before: { keysTheyCreated },
    after: { keysTheyCreated: { ...keysTheyCreated, are: KEYS_KEEP_WORKING } },
  };
}

function counted(n: number): string {
  return n === 1 ? '1 API key' : `${n} API keys`;
}

function beyondRole(mine: MemberKeys, role: ConsoleRole): number {
  return mine.keys.filter((k) => scopesBeyondRole(role, k.scopes).length > 0).length;
}

/**
 * After a removal or role change: how many keys the member created still work, and a link to
 * the keys page (no key is revoked for them: a departing engineer's key may run production).
 */
export async function keysStillWorking(
  ctx: ConsoleContext,
  tenantId: string,
  memberId: string,
  name: string,
  newRole: ConsoleRole | null,
): Promise<Pick<ChangeResult, 'link'> & { note: string }> {
  const mine = await workingKeysOfMember(ctx.deps, tenantId, memberId);
  if (mine.working === 0) return { note: '' };
  const beyond = newRole === null ? 0 : beyondRole(mine, newRole);
  const more = mine.working > mine.keys.length ? ' or more' : '';
  const why =
    beyond > 0 ? ` (${beyond}${more} of them hold scopes the ${newRole ?? ''} role may not use)` : '';
  return {
    note: ` ${counted(mine.working)} that ${name} created still work${mine.working === 1 ? 's' : ''}${why}: rotate or revoke them on the API keys page.`,
    link: { href: '/console/keys', text: `Review ${name}’s keys on the API keys page` },
  };
}
