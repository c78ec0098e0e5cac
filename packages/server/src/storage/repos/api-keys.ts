import type { Scope } from '@presence/contract';
import type { ExpressionBuilder, Kysely } from 'kysely';
import type { ApiKeyRecord, ApiKeyRepo } from '../../domain/api-keys/ports.js';
import type { PageRequest } from '../../domain/ports.js';
import type { ApiKeysTable, Database } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { parseJson } from './rows.js';

type ApiKeyChange = Parameters<ApiKeyRepo['update']>[2];

export function createApiKeyRepo(db: Kysely<Database>): ApiKeyRepo {
  return {
    async insert(k) {
      await mapUniqueViolation(() => db.insertInto('api_keys').values(toRow(k)).execute());
    },
    /** Deliberately across tenants: this is how a presented secret finds its tenant. */
    async findByHash(keyHash) {
      const row = await db
        .selectFrom('api_keys')
        .selectAll()
        .where('key_hash', '=', keyHash)
        .executeTakeFirst();
      return row && toApiKey(row);
    },
    async get(tenantId, id) {
      const row = await selectById(db, tenantId, id).executeTakeFirst();
      return row && toApiKey(row);
    },
    list: (tenantId, page) => listApiKeys(db, tenantId, page),
    update: (tenantId, id, change) => updateApiKey(db, tenantId, id, change),
    markRotated: (tenantId, id, rotation) => markRotated(db, tenantId, id, rotation),
    liveByCreator: (tenantId, memberId, now, limit) => liveByCreator(db, tenantId, memberId, now, limit),
    /** Only moves last_used_at forward, so racing requests never set it back. */
    async touch(id, at) {
      await db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    },
  };
}

function selectById(db: Kysely<Database>, tenantId: string, id: string) {
  return db.selectFrom('api_keys').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
}

async function listApiKeys(
  db: Kysely<Database>,
  tenantId: string,
  page: PageRequest,
): Promise<ApiKeyRecord[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(page.afterId !== undefined, (qb) => qb.where('id', '>', page.afterId!))
    .orderBy('id')
    .limit(page.limit)
    .execute();
  return rows.map(toApiKey);
}

async function liveByCreator(
  db: Kysely<Database>,
  tenantId: string,
  memberId: string,
  now: number,
  limit: number,
): Promise<{ keys: ApiKeyRecord[]; total: number }> {
  const live = db
    .selectFrom('api_keys')
    .where('tenant_id', '=', tenantId)
    .where('created_by_member_id', '=', memberId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  const rows = await live.selectAll().orderBy('id').limit(limit).execute();
  const counted = await live.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirst();
  return { keys: rows.map(toApiKey), total: Number(counted?.n ?? 0) };
}

async function updateApiKey(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
  change: ApiKeyChange,
): Promise<ApiKeyRecord | undefined> {
  if (change.revokedAt === undefined && change.expiresAt === undefined) {
    const row = await selectById(db, tenantId, id).executeTakeFirst();
    return row && toApiKey(row);
  }
  const row = await db
    .updateTable('api_keys')
    .set((eb) => changeColumns(eb, change))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  return row && toApiKey(row);
}

async function markRotated(
  db: Kysely<Database>,
  tenantId: string,
  id: string,
  rotation: Parameters<ApiKeyRepo['markRotated']>[2],
): Promise<ApiKeyRecord | undefined> {
  const row = await db
    .updateTable('api_keys')
    .set((eb) => ({
      rotated_to: rotation.successorId,
      ...changeColumns(eb, { expiresAt: rotation.expiresAt }),
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('rotated_to', 'is', null)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', rotation.now)]))
    .returningAll()
    .executeTakeFirst();
  return row && toApiKey(row);
}

/** revoked_at is set only once; expires_at only ever moves earlier. */
function changeColumns(eb: ExpressionBuilder<Database, 'api_keys'>, change: ApiKeyChange) {
  return {
    ...(change.revokedAt === undefined
      ? {}
      : { revoked_at: eb.fn.coalesce('revoked_at', eb.val(change.revokedAt)) }),
    ...(change.expiresAt === undefined
      ? {}
      : {
          expires_at: eb
            .case()
            .when(eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', change.expiresAt)]))
            .then(change.expiresAt)
            .else(eb.ref('expires_at'))
            .end(),
        }),
  };
}

function toRow(k: ApiKeyRecord): ApiKeysTable {
  return {
    id: k.id,
    tenant_id: k.tenantId,
    name: k.name,
    prefix: k.prefix,
    key_hash: k.keyHash,
    scopes: JSON.stringify(k.scopes),
    created_at: k.createdAt,
    last_used_at: k.lastUsedAt,
    expires_at: k.expiresAt,
    revoked_at: k.revokedAt,
    rotated_to: null,
    created_by_member_id: k.createdByMemberId,
  };
}

function toApiKey(row: ApiKeysTable): ApiKeyRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    prefix: row.prefix,
    keyHash: row.key_hash,
    scopes: parseJson<Scope[]>(row.scopes),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    // Null for every key stored before migration 0019, and for keys not made in the console.
    createdByMemberId: row.created_by_member_id ?? null,
  };
}
