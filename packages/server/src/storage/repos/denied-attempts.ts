import type { Kysely } from 'kysely';
import type { DeniedAttemptRepo } from '../../domain/presence/list-denied-attempts.js';
import type { Database } from '../schema.js';

/**
 * Denials as stored on the challenges they decided (every decision but PRESENCE_VERIFIED), read
 * through the partial index of migration 0014. Same query in both dialects.
 */
export function createDeniedAttemptRepo(db: Kysely<Database>): DeniedAttemptRepo {
  return {
    list: async (tenantId, page) => {
      let query = db
        .selectFrom('challenges')
        .select([
          'id',
          'subject',
          'purpose',
          'action_hash_hex',
          'decision',
          'reason',
          'used_at',
          'expires_at',
        ])
        .where('tenant_id', '=', tenantId)
        .where('decision', 'is not', null)
        .where('decision', '<>', 'PRESENCE_VERIFIED')
        .orderBy('id', 'desc')
        .limit(page.limit);
      if (page.beforeId !== undefined) query = query.where('id', '<', page.beforeId);
      return (await query.execute()).map((r) => ({
        challengeId: r.id,
        subject: r.subject,
        purpose: r.purpose,
        actionHashHex: r.action_hash_hex,
        decision: r.decision!,
        reason: r.reason,
        decidedAt: Number(r.used_at ?? r.expires_at),
      }));
    },
  };
}
