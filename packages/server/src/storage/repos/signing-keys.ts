import type { Kysely } from 'kysely';
import type { SigningKeyRecord, SigningKeyRepo } from '../../domain/receipts/ports.js';
import type { Database, SigningKeysTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { changedAny } from './rows.js';

/** Service-wide keys: not tenant-owned, so no tenant filter. */
export function createSigningKeyRepo(db: Kysely<Database>): SigningKeyRepo {
  return {
    async insert(k) {
      await mapUniqueViolation(() => db.insertInto('signing_keys').values(toRow(k)).execute());
    },
    async list() {
      const rows = await db
        .selectFrom('signing_keys')
        .selectAll()
        .orderBy('created_at')
        .orderBy('kid')
        .execute();
      return rows.map(toSigningKey);
    },
    /**
     * Stops the key signing from `at` on: status 'retired', and notAfter moved to `at` unless it
     * was already earlier. It stays listed, so receipts it signed before stay verifiable.
     */
    async retire(kid, at, expectedNotAfter) {
      const result = await db
        .updateTable('signing_keys')
        .set((eb) => ({
          status: 'retired',
          not_after: eb
            .case()
            .when(eb.or([eb('not_after', 'is', null), eb('not_after', '>', at)]))
            .then(at)
            .else(eb.ref('not_after'))
            .end(),
        }))
        .where('kid', '=', kid)
        .$if(expectedNotAfter !== undefined, (qb) =>
          qb.where('not_after', expectedNotAfter === null ? 'is' : '=', expectedNotAfter!),
        )
        .executeTakeFirst();
      return changedAny(result);
    },
  };
}

function toRow(k: SigningKeyRecord): SigningKeysTable {
  return {
    kid: k.kid,
    public_key_b64url: k.publicKeyB64Url,
    private_key_sealed: k.privateKeySealed,
    created_at: k.createdAt,
    not_before: k.notBefore,
    not_after: k.notAfter,
    status: k.status,
  };
}

function toSigningKey(row: SigningKeysTable): SigningKeyRecord {
  return {
    kid: row.kid,
    publicKeyB64Url: row.public_key_b64url,
    privateKeySealed: row.private_key_sealed,
    createdAt: row.created_at,
    notBefore: row.not_before,
    notAfter: row.not_after,
    status: row.status as SigningKeyRecord['status'],
  };
}
