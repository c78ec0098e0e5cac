/** The `approval_challenges` table: which challenge the hosted page issued for which approval and intent. */
import type { Kysely } from 'kysely';
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
