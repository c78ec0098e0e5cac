/**
 * The `unique_action_claims` table (policy rule uniqueActions): one live holder (a challenge or an
 * approval) per tenant and action hash, taken with one upsert so that of two racing creators exactly
 * one holds it; and the lookups of what already approved an action.
 */
import { sql, type Kysely } from 'kysely';
import type { UniqueActionRepo } from '../../../domain/approvals/ports.js';
import type { Database } from '../../schema.js';

export function createUniqueActionRepo(db: Kysely<Database>): UniqueActionRepo {
  return {
    async claim(tenantId, actionHashHex, holder, now) {
      const row = await db
        .insertInto('unique_action_claims')
        .values({
          tenant_id: tenantId,
          action_hash_hex: actionHashHex,
          holder_id: holder.holderId,
          held_until: holder.until,
        })
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'action_hash_hex'])
            .doUpdateSet({ holder_id: holder.holderId, held_until: holder.until })
            .where('unique_action_claims.held_until', '<=', now),
        )
        .returning('holder_id')
        .executeTakeFirst();
      return row !== undefined;
    },
    async holder(tenantId, actionHashHex) {
      const row = await db
        .selectFrom('unique_action_claims')
        .select(['holder_id', 'held_until'])
        .where('tenant_id', '=', tenantId)
        .where('action_hash_hex', '=', actionHashHex)
        .executeTakeFirst();
      return row && { holderId: row.holder_id, until: Number(row.held_until) };
    },
    async release(tenantId, actionHashHex, holderId) {
      await db
        .deleteFrom('unique_action_claims')
        .where('tenant_id', '=', tenantId)
        .where('action_hash_hex', '=', actionHashHex)
        .where('holder_id', '=', holderId)
        .execute();
    },
    async firstDirectReceipt(tenantId, actionHashHex) {
      const row = await db
        .selectFrom('receipts as r')
        .select('r.id')
        .where('r.tenant_id', '=', tenantId)
        .where('r.action_hash_hex', '=', actionHashHex)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('approval_challenges as c')
                .select(sql<number>`1`.as('one'))
                .whereRef('c.challenge_id', '=', 'r.challenge_id'),
            ),
          ),
        )
        .orderBy('r.seq')
        .limit(1)
        .executeTakeFirst();
      return row?.id;
    },
  };
}
