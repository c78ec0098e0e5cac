import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';

/** Removes an active member; false when there is none (a compare-and-set on removed_at). */
export async function removeMember(db: Kysely<Database>, tenantId: string, id: string, at: number) {
  const result = await db
    .updateTable('console_members')
    .set({ removed_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * Inside a transaction: takes the tenant row's lock (PostgreSQL; an UPDATE that changes nothing;
 * SQLite transactions are serial already) and counts the tenant's active owners, so a change that
 * could leave no owner (a removal, a role change) sees the owners the one before it left.
 */
export async function lockOwners(db: Kysely<Database>, tenantId: string): Promise<number> {
  await db
    .updateTable('tenants')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', tenantId)
    .execute();
  const row = await db
    .selectFrom('console_members')
    .select((eb) => eb.fn.countAll<string | number>().as('owners'))
    .where('tenant_id', '=', tenantId)
    .where('removed_at', 'is', null)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.owners);
}

/**
 * Removes a member unless it is the tenant's last owner; run inside a transaction. Removals of one
 * tenant are serialized on the tenant's row: on PostgreSQL (READ COMMITTED) the UPDATE below, which
 * changes nothing, takes that row's lock, so a concurrent removal waits, then reads the owners this
 * one left (without it, two owners removing each other at once both saw the other stay); SQLite
 * transactions are serial already.
 */
export async function removeKeepingAnOwner(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
  at: number,
): Promise<'removed' | 'not_found' | 'last_owner'> {
  await db
    .updateTable('tenants')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', tenantId)
    .execute();
  const active = db
    .selectFrom('console_members')
    .where('tenant_id', '=', tenantId)
    .where('removed_at', 'is', null);
  const member = await active.select('role').where('id', '=', id).executeTakeFirst();
  if (!member) return 'not_found';
  if (member.role === 'owner') {
    const other = await active
      .select('id')
      .where('role', '=', 'owner')
      .where('id', '<>', id)
      .limit(1)
      .executeTakeFirst();
    if (!other) return 'last_owner';
  }
  await db
    .updateTable('console_members')
    .set({ removed_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .execute();
  return 'removed';
}

/** An UPDATE that changes nothing: the member's row lock for the rest of the transaction. */
export async function lockMember(db: Kysely<Database>, tenantId: string, id: string): Promise<boolean> {
  const result = await db
    .updateTable('console_members')
    .set((eb) => ({ display_name: eb.ref('display_name') }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
