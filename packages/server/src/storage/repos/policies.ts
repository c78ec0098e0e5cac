import type { PolicyRules } from '@presence/contract';
import type { Kysely } from 'kysely';
import type { PolicyRecord, PolicyRepo } from '../../domain/policy/ports.js';
import { readStoredRules } from '../../domain/policy/resolve-policy.js';
import type { Database, PoliciesTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { parseJson } from './rows.js';

export function createPolicyRepo(db: Kysely<Database>): PolicyRepo {
  return {
    /** Throws UniqueViolation (policies_tenant_id_version_key) when the version already exists. */
    async insert(p) {
      await mapUniqueViolation(() => db.insertInto('policies').values(toRow(p)).execute());
    },
    async current(tenantId) {
      const row = await db
        .selectFrom('policies')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row && toPolicy(row);
    },
    async history(tenantId, limit) {
      const rows = await db
        .selectFrom('policies')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('version', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toPolicy);
    },
    async get(tenantId, id) {
      const row = await db
        .selectFrom('policies')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toPolicy(row);
    },
  };
}

function toRow(p: PolicyRecord): PoliciesTable {
  return {
    id: p.id,
    tenant_id: p.tenantId,
    version: p.version,
    rules: JSON.stringify(p.rules),
    hash_hex: p.hashHex,
    created_at: p.createdAt,
  };
}

function toPolicy(row: PoliciesTable): PolicyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    version: row.version,
    rules: readStoredRules(parseJson<PolicyRules>(row.rules)),
    hashHex: row.hash_hex,
    createdAt: row.created_at,
  };
}
