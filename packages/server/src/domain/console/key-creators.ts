import type { ApiKey, Scope } from '@presence/contract';
import { toApiKey } from '../api-keys/create-api-key.js';
import type { ApiKeyRecord } from '../api-keys/ports.js';
import type { Deps } from '../deps.js';
import { scopesBeyondRole } from './permissions.js';
import type { ConsoleRole, MemberRecord } from './ports.js';

/** Who made a key in the console: the member as it is now (its role today, or removed). */
export interface KeyCreator {
  memberId: string;
  name: string;
  role: ConsoleRole;
  removed: boolean;
}

export interface KeyWithCreator {
  key: ApiKey;
  /** Null: made through the API, the CLI or the operator API (or stored before creators were recorded). */
  creator: KeyCreator | null;
  /** Why someone should rotate or revoke this working key; null when nothing calls for it. */
  concern: string | null;
}

/** The keys a member's keys page shows at most; the API lists the rest. */
export const KEYS_SHOWN = 200;

function works(key: ApiKeyRecord, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/**
 * Why a working key made by `creator` outlives what its creator may still do: the creator was
 * removed, or its role today may not use some of the key's scopes. Keys belong to the tenant and
 * keep working; the console only says who should rotate or revoke them (docs/security.md).
 */
export function creatorConcern(creator: KeyCreator, scopes: readonly Scope[]): string | null {
  if (creator.removed) return `created by ${creator.name}, who was removed`;
  const beyond = scopesBeyondRole(creator.role, scopes);
  if (beyond.length === 0) return null;
  return `created by ${creator.name}, now ${creator.role}: holds ${beyond.join(', ')}`;
}

/** The tenant's keys (up to KEYS_SHOWN), each with who created it and whether that calls for a rotation. */
export async function listKeysWithCreators(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
): Promise<KeyWithCreator[]> {
  const records = await deps.store.apiKeys.list(tenantId, { limit: KEYS_SHOWN });
  const ids = [...new Set(records.flatMap((k) => (k.createdByMemberId ? [k.createdByMemberId] : [])))];
  const members = new Map<string, MemberRecord | undefined>();
  for (const id of ids) members.set(id, await deps.store.console.members.get(tenantId, id));
  const now = deps.clock.now();
  return records.map((record) => {
    const member = record.createdByMemberId ? members.get(record.createdByMemberId) : undefined;
    const creator: KeyCreator | null =
      record.createdByMemberId === null
        ? null
        : {
            memberId: record.createdByMemberId,
            // A member row is never deleted; a missing one reads as removed all the same.
            name: member?.displayName ?? record.createdByMemberId,
            role: member?.role ?? 'auditor',
            removed: member === undefined || member.removedAt !== null,
          };
    const concern = creator && works(record, now) ? creatorConcern(creator, record.scopes) : null;
    return { key: toApiKey(record), creator, concern };
  });
}

/** What a member removal or role change shows of the member's keys: at most this many by name. */
export const MEMBER_KEYS_SHOWN = 20;

export interface MemberKeys {
  /** How many keys the member created (or rotated) still work. */
  working: number;
  /** The first MEMBER_KEYS_SHOWN of them, oldest first. */
  keys: { keyId: string; name: string; scopes: Scope[] }[];
}

/** The keys `memberId` created in the console that still work now. */
export async function workingKeysOfMember(
  deps: Pick<Deps, 'store' | 'clock'>,
  tenantId: string,
  memberId: string,
): Promise<MemberKeys> {
  const now = deps.clock.now();
  const live = await deps.store.apiKeys.liveByCreator(tenantId, memberId, now, MEMBER_KEYS_SHOWN);
  return {
    working: live.total,
    keys: live.keys.map((k) => ({ keyId: k.id, name: k.name, scopes: k.scopes })),
  };
}
