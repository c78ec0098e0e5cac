/** The `approval_challenges` table: which challenge the hosted page issued for which approval and intent. */
import { sql, type Kysely } from 'kysely';
import type { ApprovalIntent } from '@presence/contract';
import type { ApprovalChallengeRecord, ApprovalChallengeRepo } from '../../../domain/approvals/ports.js';
import type { ApprovalChallengesTable, Database } from '../../schema.js';

export function createApprovalChallengeRepo(db: Kysely<Database>): ApprovalChallengeRepo {
  return {
    async insert(c) {
      await db.insertInto('approval_challenges').values(toRow(c)).execute();
    },
    async get(tenantId, challengeId) {
      const row = await db
        .selectFrom('approval_challenges')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('challenge_id', '=', challengeId)
        .executeTakeFirst();
      return row && toRecord(row);
    },
    async listUnrecorded(now, verifiedBefore, limit) {
      const rows = await db
        .selectFrom('approvals as a')
        .innerJoin('approval_challenges as c', (j) =>
          j.onRef('c.approval_id', '=', 'a.id').onRef('c.tenant_id', '=', 'a.tenant_id'),
        )
        .innerJoin('challenges as ch', (j) =>
          j.onRef('ch.id', '=', 'c.challenge_id').onRef('ch.tenant_id', '=', 'c.tenant_id'),
        )
        .innerJoin('receipts as r', (j) =>
          j.onRef('r.challenge_id', '=', 'ch.id').onRef('r.tenant_id', '=', 'ch.tenant_id'),
        )
        .selectAll('c')
        .where('a.status', '=', 'pending')
        .where('a.expires_at', '>', now)
        .where('ch.status', '=', 'verified')
        .where('ch.used_at', '<', verifiedBefore)
        .where(({ exists, selectFrom, or, eb }) =>
          exists(
            selectFrom('approval_approvers as p')
              .select(sql<number>`1`.as('one'))
              .whereRef('p.approval_id', '=', 'a.id')
              .whereRef('p.subject', '=', 'r.subject')
              .where('p.decision', 'is', null),
          ).and(or([eb('a.initiator', 'is', null), eb('a.initiator', '!=', eb.ref('r.subject'))])),
        )
        .orderBy('c.created_at')
        .orderBy('c.challenge_id')
        .limit(limit)
        .execute();
      return rows.map(toRecord);
    },
  };
}

function toRow(c: ApprovalChallengeRecord): ApprovalChallengesTable {
  return {
    challenge_id: c.challengeId,
    tenant_id: c.tenantId,
    approval_id: c.approvalId,
    intent: c.intent,
    created_at: c.createdAt,
  };
}

function toRecord(row: ApprovalChallengesTable): ApprovalChallengeRecord {
  return {
    challengeId: row.challenge_id,
    tenantId: row.tenant_id,
    approvalId: row.approval_id,
    intent: row.intent as ApprovalIntent,
    createdAt: Number(row.created_at),
  };
}
