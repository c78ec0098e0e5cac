/**
 * The credentials repo: rows are the table module's (tables/credentials.ts); a verification's
 * counter compare-and-set is the hot path's (hot-path/), built from that module too.
 */
import type { Kysely } from 'kysely';
import type { CredentialRecord, CredentialRepo } from '../../domain/credentials/ports.js';
import type { PageRequest } from '../../domain/ports.js';
import type { Database } from '../schema.js';
import { toCredential, toCredentialRow } from '../tables/credentials.js';
import { mapUniqueViolation } from '../unique-violation.js';

type CredentialFilter = Parameters<CredentialRepo['list']>[1];

export function createCredentialRepo(db: Kysely<Database>): CredentialRepo {
  return {
    /** Throws UniqueViolation (credentials_tenant_id_credential_id_key) for a known credential id. */
    async insert(c) {
      await mapUniqueViolation(() => db.insertInto('credentials').values(toCredentialRow(c)).execute());
    },
    async get(tenantId, id) {
      const row = await ofTenant(db, tenantId).where('id', '=', id).executeTakeFirst();
      return row && toCredential(row);
    },
    async getByCredentialId(tenantId, credentialId) {
      const row = await ofTenant(db, tenantId).where('credential_id', '=', credentialId).executeTakeFirst();
      return row && toCredential(row);
    },
    list: (tenantId, filter, page) => listCredentials(db, tenantId, filter, page),
    revoke: (tenantId, id, at) => revokeCredential(db, tenantId, id, at),
  };
}

function ofTenant(db: Kysely<Database>, tenantId: string) {
  return db.selectFrom('credentials').selectAll().where('tenant_id', '=', tenantId);
}

async function listCredentials(
  db: Kysely<Database>,
  tenantId: string,
  filter: CredentialFilter,
  page: PageRequest,
): Promise<CredentialRecord[]> {
  const rows = await ofTenant(db, tenantId)
    .$if(filter.subject !== undefined, (qb) => qb.where('subject', '=', filter.subject!))
    .$if(!filter.includeRevoked, (qb) => qb.where('revoked_at', 'is', null))
    .$if(page.afterId !== undefined, (qb) => qb.where('id', '>', page.afterId!))
    .orderBy('id')
    .limit(page.limit)
    .execute();
  return rows.map(toCredential);
}

/** A compare-and-set: revokes an active credential; undefined when it was revoked already (or is none). */
async function revokeCredential(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
  at: number,
): Promise<CredentialRecord | undefined> {
  const row = await db
    .updateTable('credentials')
    .set({ revoked_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return row && toCredential(row);
}
