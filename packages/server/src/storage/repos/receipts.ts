import type { Kysely } from 'kysely';
import type { ReceiptRecord, ReceiptRepo } from '../../domain/receipts/ports.js';
import type { Database, ReceiptsTable } from '../schema.js';
import { mapUniqueViolation } from '../unique-violation.js';
import { nextCounterValue } from './tenant-counters.js';

export function createReceiptRepo(db: Kysely<Database>): ReceiptRepo {
  const ofTenant = (tenantId: string) =>
    db.selectFrom('receipts').selectAll().where('tenant_id', '=', tenantId);
  return {
    /**
     * Takes the next seq from the tenant's counter row, then inserts. The upsert locks that row
     * until the transaction ends, so receipts of one tenant commit in seq order (SQLite serializes
     * writers anyway). Throws UniqueViolation (receipts_tenant_id_challenge_id_key) for a second
     * receipt of a challenge.
     */
    async insert(r) {
      const seq = await nextCounterValue(db, r.tenantId, 'receipts');
      await mapUniqueViolation(() =>
        db
          .insertInto('receipts')
          .values({ ...toRow(r), seq })
          .execute(),
      );
      return seq;
    },
    async get(tenantId, id) {
      const row = await ofTenant(tenantId).where('id', '=', id).executeTakeFirst();
      return row && toReceipt(row);
    },
    async getByChallenge(tenantId, challengeId) {
      const row = await ofTenant(tenantId).where('challenge_id', '=', challengeId).executeTakeFirst();
      return row && toReceipt(row);
    },
  };
}

function toRow(r: ReceiptRecord): Omit<ReceiptsTable, 'seq'> {
  return {
    id: r.id,
    tenant_id: r.tenantId,
    challenge_id: r.challengeId,
    credential_ref: r.credentialRef,
    subject: r.subject,
    action_hash_hex: r.actionHashHex,
    issued_at: r.issuedAt,
    canonical_json: r.canonicalJson,
    hash_hex: r.hashHex,
    kid: r.kid,
    signature_b64url: r.signatureB64Url,
  };
}

export function toReceipt(row: ReceiptsTable): ReceiptRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    challengeId: row.challenge_id,
    credentialRef: row.credential_ref,
    subject: row.subject,
    actionHashHex: row.action_hash_hex,
    issuedAt: row.issued_at,
    canonicalJson: row.canonical_json,
    hashHex: row.hash_hex,
    kid: row.kid,
    signatureB64Url: row.signature_b64url,
    seq: Number(row.seq),
  };
}
