/**
 * The challenges repo: rows and the settlement's compare-and-set are the table module's
 * (tables/challenges.ts); a verification's writes are the hot path's (hot-path/).
 */
import type { Kysely } from 'kysely';
import type { ChallengeRepo } from '../../domain/presence/ports.js';
import type { Database } from '../schema.js';
import { toChallenge, toChallengeRow } from '../tables/challenges.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createChallengeRepo(db: Kysely<Database>): ChallengeRepo {
  return {
    async insert(c) {
      await mapUniqueViolation(() => db.insertInto('challenges').values(toChallengeRow(c)).execute());
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('challenges')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toChallenge(row);
    },
    /** Like retention's challenge rule (storage/repos/retention.ts), for one action and at once. */
    async deleteExpired(tenantId, actionHashHex, window, limit) {
      const expired = db
        .selectFrom('challenges as c')
        .select('c.id')
        .where('c.tenant_id', '=', tenantId)
        .where('c.action_hash_hex', '=', actionHashHex)
        .where('c.receipt_id', 'is', null)
        .where('c.expires_at', '<', window.now)
        .where('c.expires_at', '>=', window.since)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('receipts as r')
                .select('r.id')
                .whereRef('r.tenant_id', '=', 'c.tenant_id')
                .whereRef('r.challenge_id', '=', 'c.id'),
            ),
          ),
        )
        .limit(limit);
      const result = await db
        .deleteFrom('challenges')
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', expired)
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
