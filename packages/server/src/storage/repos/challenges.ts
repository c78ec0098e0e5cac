import type { Decision } from '@presence/contract';
import type { Kysely } from 'kysely';
import type { ChallengeRecord, ChallengeRepo, ChallengeStatus } from '../../domain/presence/ports.js';
import type { ChallengesTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, parseJson } from './rows.js';

export function createChallengeRepo(db: Kysely<Database>): ChallengeRepo {
  return {
    async insert(c) {
      await mapUniqueViolation(() => db.insertInto('challenges').values(toRow(c)).execute());
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
    /** One statement guarded by status = 'pending': exactly one of racing calls wins. */
    async settle(tenantId, id, s) {
      const result = await db
        .updateTable('challenges')
        .set({
          status: s.status,
          used_at: s.usedAt,
          decision: s.decision,
          reason: s.reason,
          receipt_id: s.receiptId,
          credential_ref: s.credentialRef,
        })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return changedAny(result);
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

function toRow(c: ChallengeRecord): ChallengesTable {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    action_hash_hex: c.actionHashHex,
    subject: c.subject,
    purpose: c.purpose,
    nonce_b64url: c.nonceB64Url,
    challenge_b64url: c.challengeB64Url,
    allow_credential_ids: JSON.stringify(c.allowCredentialIds),
    policy_id: c.policyId,
    created_at: c.createdAt,
    expires_at: c.expiresAt,
    status: c.status,
    used_at: c.usedAt,
    decision: c.decision,
    reason: c.reason,
    receipt_id: c.receiptId,
    credential_ref: c.credentialRef,
  };
}

/** status (CHECKed by the schema) and decision are written only from typed records. */
export function toChallenge(row: ChallengesTable): ChallengeRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    actionHashHex: row.action_hash_hex,
    subject: row.subject,
    purpose: row.purpose,
    nonceB64Url: row.nonce_b64url,
    challengeB64Url: row.challenge_b64url,
    allowCredentialIds: parseJson<string[]>(row.allow_credential_ids),
    policyId: row.policy_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.status as ChallengeStatus,
    usedAt: row.used_at,
    decision: row.decision as Decision | null,
    reason: row.reason,
    receiptId: row.receipt_id,
    credentialRef: row.credential_ref,
  };
}
