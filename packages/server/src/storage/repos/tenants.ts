import type { Kysely } from 'kysely';
import type { TenantRecord, TenantRepo } from '../../domain/tenants/ports.js';
import type { Database, TenantsTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';

export function createTenantRepo(db: Kysely<Database>): TenantRepo {
  return {
    async insert(t) {
      const row: TenantsTable = { id: t.id, name: t.name, created_at: t.createdAt };
      await mapUniqueViolation(() => db.insertInto('tenants').values(row).execute());
    },
    async get(id) {
      const row = await db.selectFrom('tenants').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toTenant(row);
    },
    async list() {
      const rows = await db.selectFrom('tenants').selectAll().orderBy('id').execute();
      return rows.map(toTenant);
    },
  };
}

function toTenant(row: TenantsTable): TenantRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}
