import type { Kysely } from 'kysely';
import type {
  ConsoleRepos,
  ConsoleRole,
  InviteRecord,
  MemberRecord,
  SessionRecord,
} from '../../domain/console/ports.js';
import type { ConsoleInvitesTable, ConsoleMembersTable, ConsoleSessionsTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { lockMember, lockOwners, removeKeepingAnOwner, removeMember } from './console-member-removal.js';
import { createConsoleChangeRepo, createConsoleQuorumRepo } from './console-changes.js';
import { createPasskeyNameRepo } from './console-passkey-names.js';
import { changedAny } from './rows.js';

/** The `expires_at` of a cancelled invite: no acceptance, whenever it read the clock, finds it open. */
const CANCELLED_INVITE_EXPIRES_AT = 0;

/** Console members, invites and sessions: the same queries in both dialects. */
export function createConsoleRepos(db: Kysely<Database>): ConsoleRepos {
  return {
    members: {
      insert: async (m) => void (await db.insertInto('console_members').values(memberRow(m)).execute()),
      get: async (tenantId, id) =>
        toMember(
          await db
            .selectFrom('console_members')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .executeTakeFirst(),
        ),
      getAnyTenant: async (id) =>
        toMember(await db.selectFrom('console_members').selectAll().where('id', '=', id).executeTakeFirst()),
      list: async (tenantId) =>
        (
          await db
            .selectFrom('console_members')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('removed_at', 'is', null)
            .orderBy('id')
            .execute()
        ).map((r) => toMember(r)!),
      removeKeepingAnOwner: (tenantId, id, at) => removeKeepingAnOwner(db, tenantId, id, at),
      lock: (tenantId, id) => lockMember(db, tenantId, id),
      remove: (tenantId, id, at) => removeMember(db, tenantId, id, at),
      lockOwners: (tenantId) => lockOwners(db, tenantId),
      setRole: async (tenantId, id, from, to) =>
        changedAny(
          await db
            .updateTable('console_members')
            .set({ role: to })
            .where('tenant_id', '=', tenantId)
            .where('id', '=', id)
            .where('role', '=', from)
            .where('removed_at', 'is', null)
            .executeTakeFirst(),
        ),
    },
    invites: createInviteRepo(db),
    sessions: createSessionRepo(db),
    changes: createConsoleChangeRepo(db),
    quorum: createConsoleQuorumRepo(db),
    passkeyNames: createPasskeyNameRepo(db),
  };
}

function createInviteRepo(db: Kysely<Database>): ConsoleRepos['invites'] {
  return {
    insert: async (i) =>
      void (await mapUniqueViolation(() => db.insertInto('console_invites').values(inviteRow(i)).execute())),
    findByTokenHash: async (tokenHash) => {
      const row = await db
        .selectFrom('console_invites')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toInvite(row);
    },
    consume: async (id, at) =>
      changedAny(
        await db
          .updateTable('console_invites')
          .set({ used_at: at })
          .where('id', '=', id)
          .where('used_at', 'is', null)
          .where('expires_at', '>', at)
          .executeTakeFirst(),
      ),
    listOpen: async (tenantId, now) =>
      (
        await db
          .selectFrom('console_invites')
          .selectAll()
          .where('tenant_id', '=', tenantId)
          .where('used_at', 'is', null)
          .where('expires_at', '>', now)
          .orderBy('id')
          .execute()
      ).map(toInvite),
    cancel: async (tenantId, id, at) =>
      changedAny(
        await db
          .updateTable('console_invites')
          // Expired at the epoch, not at `at`: an acceptance that read its time before this cancel
          // (and so compares an earlier `at`) must not find the invite still open.
          .set({ expires_at: CANCELLED_INVITE_EXPIRES_AT })
          .where('tenant_id', '=', tenantId)
          .where('id', '=', id)
          .where('used_at', 'is', null)
          .where('expires_at', '>', at)
          .executeTakeFirst(),
      ),
  };
}

function createSessionRepo(db: Kysely<Database>): ConsoleRepos['sessions'] {
  return {
    insert: async (s) => void (await db.insertInto('console_sessions').values(sessionRow(s)).execute()),
    findByTokenHash: async (tokenHash) => {
      const row = await db
        .selectFrom('console_sessions')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toSession(row);
    },
    touch: async (id, at) =>
      void (await db
        .updateTable('console_sessions')
        .set({ last_seen_at: at })
        .where('id', '=', id)
        .where('last_seen_at', '<', at)
        .execute()),
    revoke: async (id, at) =>
      void (await db
        .updateTable('console_sessions')
        .set({ revoked_at: at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .execute()),
    revokeAllOfMember: async (memberId, at) =>
      Number(
        (
          await db
            .updateTable('console_sessions')
            .set({ revoked_at: at })
            .where('member_id', '=', memberId)
            .where('revoked_at', 'is', null)
            .executeTakeFirst()
        ).numUpdatedRows,
      ),
  };
}

function memberRow(m: MemberRecord): ConsoleMembersTable {
  return {
    id: m.id,
    tenant_id: m.tenantId,
    display_name: m.displayName,
    role: m.role,
    created_at: m.createdAt,
    removed_at: m.removedAt,
  };
}

function toMember(row: ConsoleMembersTable | undefined): MemberRecord | undefined {
  if (!row) return undefined;
  return {
    id: row.id,
    tenantId: row.tenant_id,
    displayName: row.display_name,
    role: row.role as ConsoleRole,
    createdAt: Number(row.created_at),
    removedAt: row.removed_at === null ? null : Number(row.removed_at),
  };
}

function inviteRow(i: InviteRecord): ConsoleInvitesTable {
  return {
    id: i.id,
    tenant_id: i.tenantId,
    token_hash: i.tokenHash,
    role: i.role,
    member_id: i.memberId,
    created_by: i.createdBy,
    created_at: i.createdAt,
    expires_at: i.expiresAt,
    used_at: i.usedAt,
  };
}

function toInvite(row: ConsoleInvitesTable): InviteRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    tokenHash: row.token_hash,
    role: row.role as ConsoleRole,
    memberId: row.member_id,
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}

function sessionRow(s: SessionRecord): ConsoleSessionsTable {
  return {
    id: s.id,
    tenant_id: s.tenantId,
    member_id: s.memberId,
    token_hash: s.tokenHash,
    created_at: s.createdAt,
    last_seen_at: s.lastSeenAt,
    expires_at: s.expiresAt,
    revoked_at: s.revokedAt,
  };
}

function toSession(row: ConsoleSessionsTable): SessionRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    memberId: row.member_id,
    tokenHash: row.token_hash,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
    expiresAt: Number(row.expires_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
