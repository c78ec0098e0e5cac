/**
 * The receipts table, spelled in one place: its columns, its row mapper both ways, and the values
 * of an insert in column order. The repo (repos/receipts.ts), the hot path (hot-path/statements.ts
 * and presence-hot-path.ts) and the bench seeders (bench/export/seed-receipts.mjs) build from it.
 * A table of the hot path gets a module like this one (storage/tables/<table>.ts).
 */
import type { ReceiptRecord } from '../../domain/receipts/ports.js';
import type { ReceiptsTable } from '../schema.js';
import { placeholders } from './sql-text.js';

/** Every column, in the order of `receiptValues`: the receipt's own, then its seq. */
export const RECEIPT_COLUMNS = [
  'id',
  'tenant_id',
  'challenge_id',
  'credential_ref',
  'subject',
  'action_hash_hex',
  'issued_at',
  'canonical_json',
  'hash_hex',
  'kid',
  'signature_b64url',
  'seq',
] as const satisfies readonly (keyof ReceiptsTable)[];

/** The row of a receipt; `seq` is the tenant's next value (or a placeholder a statement fills). */
export function toReceiptRow<Seq = number>(
  r: ReceiptRecord,
  seq: Seq,
): Omit<ReceiptsTable, 'seq'> & { seq: Seq } {
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
    seq,
  };
}

/** $1..$12 the receipt's columns in RECEIPT_COLUMNS order (`receiptValues`). */
export const INSERT_RECEIPT = `insert into receipts (${RECEIPT_COLUMNS})
  values (${placeholders(RECEIPT_COLUMNS)})`;

/** An insert's values in RECEIPT_COLUMNS order. */
export function receiptValues(r: ReceiptRecord, seq: unknown): unknown[] {
  const row = toReceiptRow(r, seq);
  return RECEIPT_COLUMNS.map((column) => row[column]);
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
