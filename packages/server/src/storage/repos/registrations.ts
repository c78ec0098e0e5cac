import type { Kysely } from 'kysely';
import type { RegistrationRecord, RegistrationRepo } from '../../domain/credentials/ports.js';
import type { Database, RegistrationsTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny } from './rows.js';

export function createRegistrationRepo(db: Kysely<Database>): RegistrationRepo {
  return {
    async insert(r) {
      await mapUniqueViolation(() => db.insertInto('registrations').values(toRow(r)).execute());
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('registrations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRegistration(row);
    },
    /** One statement: of any number of racing calls, exactly one sees a row change. */
    async consume(tenantId, id, at) {
      const result = await db
        .updateTable('registrations')
        .set({ used_at: at })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return changedAny(result);
    },
  };
}

function toRow(r: RegistrationRecord): RegistrationsTable {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    subject: r.subject,
    challenge_b64url: r.challengeB64Url,
    user_id_b64url: r.userIdB64Url,
    policy_id: r.policyId,
    created_at: r.createdAt,
    expires_at: r.expiresAt,
    used_at: r.usedAt,
  };
}

function toRegistration(row: RegistrationsTable): RegistrationRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    subject: row.subject,
    challengeB64Url: row.challenge_b64url,
    userIdB64Url: row.user_id_b64url,
    policyId: row.policy_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}
