import type { Kysely } from 'kysely';
import type { ConsoleRepos } from '../../domain/console/ports.js';
import type { Database } from '../schema.js';

/** Members' names for their console passkeys (migration 0014): the same queries in both dialects. */
export function createPasskeyNameRepo(db: Kysely<Database>): ConsoleRepos['passkeyNames'] {
  return {
    put: async (p) =>
      void (await db
        .insertInto('console_passkey_names')
        .values({
          credential_ref: p.credentialRef,
          tenant_id: p.tenantId,
          member_id: p.memberId,
          name: p.name,
          updated_at: p.at,
        })
        .onConflict((oc) => oc.column('credential_ref').doUpdateSet({ name: p.name, updated_at: p.at }))
        .execute()),
    ofMember: async (tenantId, memberId) =>
      new Map(
        (
          await db
            .selectFrom('console_passkey_names')
            .select(['credential_ref', 'name'])
            .where('tenant_id', '=', tenantId)
            .where('member_id', '=', memberId)
            .execute()
        ).map((r) => [r.credential_ref, r.name]),
      ),
  };
}
