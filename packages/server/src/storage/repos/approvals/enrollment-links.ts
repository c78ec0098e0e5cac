/** The `enrollment_links` table: single-use links that enroll one passkey for one subject. */
import type { Kysely } from 'kysely';
import type { EnrollmentLinkRecord, EnrollmentLinkRepo } from '../../../domain/approvals/ports.js';
import type { Database, EnrollmentLinksTable } from '../../schema.js';
import { mapUniqueViolation } from '../../unique-violation.js';
import { changedAny } from '../rows.js';

export function createEnrollmentLinkRepo(db: Kysely<Database>): EnrollmentLinkRepo {
  return {
    async insert(l) {
      await mapUniqueViolation(() => db.insertInto('enrollment_links').values(toRow(l)).execute());
    },
    async getByTokenHash(tokenHash) {
      const row = await db
        .selectFrom('enrollment_links')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .executeTakeFirst();
      return row && toLink(row);
    },
    async attachRegistration(id, registrationId) {
      const result = await db
        .updateTable('enrollment_links')
        .set({ registration_id: registrationId })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return changedAny(result);
    },
    async consume(id, at) {
      const result = await db
        .updateTable('enrollment_links')
        .set({ used_at: at })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .executeTakeFirst();
      return changedAny(result);
    },
  };
}

function toRow(l: EnrollmentLinkRecord): EnrollmentLinksTable {
  return {
    id: l.id,
    tenant_id: l.tenantId,
    token_hash: l.tokenHash,
    subject: l.subject,
    display_name: l.displayName,
    registration_id: l.registrationId,
    created_at: l.createdAt,
    expires_at: l.expiresAt,
    used_at: l.usedAt,
  };
}

function toLink(row: EnrollmentLinksTable): EnrollmentLinkRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    tokenHash: row.token_hash,
    subject: row.subject,
    displayName: row.display_name,
    registrationId: row.registration_id,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
    usedAt: row.used_at === null ? null : Number(row.used_at),
  };
}
