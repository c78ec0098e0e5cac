import type { Kysely } from 'kysely';
import type { CredentialInUse, CredentialRecord, CredentialRepo } from '../../domain/credentials/ports.js';
import type { PageRequest } from '../../domain/ports.js';
import type { CredentialsTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny, fromFlag, parseJson, toFlag } from './rows.js';

type CredentialFilter = Parameters<CredentialRepo['list']>[1];

export function createCredentialRepo(db: Kysely<Database>): CredentialRepo {
  return {
    /** Throws UniqueViolation (credentials_tenant_id_credential_id_key) for a known credential id. */
    async insert(c) {
      await mapUniqueViolation(() => db.insertInto('credentials').values(toRow(c)).execute());
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
    /** Compare-and-set in one statement: active and still at the expected counter. */
    async recordUse(id, use) {
      const result = await db
        .updateTable('credentials')
        .set({ sign_count: use.signCount, backed_up: toFlag(use.backedUp), last_used_at: use.at })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .where('sign_count', '=', use.expectedSignCount)
        .executeTakeFirst();
      return changedAny(result);
    },
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

function toRow(c: CredentialRecord): CredentialsTable {
  return {
    id: c.id,
    tenant_id: c.tenantId,
    credential_id: c.credentialId,
    subject: c.subject,
    public_key_b64url: c.publicKeyB64Url,
    algorithm: c.algorithm,
    sign_count: c.signCount,
    aaguid: c.aaguid,
    transports: JSON.stringify(c.transports),
    backup_eligible: toFlag(c.backupEligible),
    backed_up: toFlag(c.backedUp),
    attestation_format: c.attestationFormat,
    attestation_object_b64url: c.attestationObjectB64Url,
    client_data_json_b64url: c.clientDataJSONB64Url,
    registration_id: c.registrationId,
    policy_id: c.policyId,
    created_at: c.createdAt,
    last_used_at: c.lastUsedAt,
    revoked_at: c.revokedAt,
  };
}

/** The columns a presence check reads (CredentialInUse); the verify hot path selects only these. */
export const CREDENTIAL_IN_USE_COLUMNS = [
  'id',
  'tenant_id',
  'credential_id',
  'subject',
  'public_key_b64url',
  'algorithm',
  'sign_count',
  'backup_eligible',
  'revoked_at',
] as const;

export function toCredentialInUse(
  row: Pick<CredentialsTable, (typeof CREDENTIAL_IN_USE_COLUMNS)[number]>,
): CredentialInUse {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    credentialId: row.credential_id,
    subject: row.subject,
    publicKeyB64Url: row.public_key_b64url,
    algorithm: row.algorithm,
    signCount: row.sign_count,
    backupEligible: fromFlag(row.backup_eligible),
    revokedAt: row.revoked_at,
  };
}

export function toCredential(row: CredentialsTable): CredentialRecord {
  return {
    ...toCredentialInUse(row),
    aaguid: row.aaguid,
    transports: parseJson<string[]>(row.transports),
    backedUp: fromFlag(row.backed_up),
    attestationFormat: row.attestation_format,
    attestationObjectB64Url: row.attestation_object_b64url,
    clientDataJSONB64Url: row.client_data_json_b64url,
    registrationId: row.registration_id,
    policyId: row.policy_id,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
  };
}
