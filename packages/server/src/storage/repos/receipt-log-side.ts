import type { Kysely } from 'kysely';
import type { LogCosignatureRecord, ReceiptLogStore } from '../../domain/receipt-log/ports.js';
import type { Database, ReceiptLogCosignaturesTable } from '../schema.js';

type SideRepo = Pick<
  ReceiptLogStore,
  'insertCosignature' | 'cosignatures' | 'witnessSettings' | 'putWitnessSettings' | 'logKeys' | 'insertLogKey'
>;

/** The receipt log's witness cosignatures, the tenant's witness settings, and the service's log keys. */
export function createReceiptLogSideRepo(db: Kysely<Database>): SideRepo {
  return {
    async insertCosignature(c) {
      const result = await db
        .insertInto('receipt_log_cosignatures')
        .values(toCosignatureRow(c))
        .onConflict((oc) => oc.columns(['tenant_id', 'tree_size', 'key_id_hex', 'witness_name']).doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    async cosignatures(tenantId, treeSize) {
      const rows = await db
        .selectFrom('receipt_log_cosignatures')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('tree_size', '=', treeSize)
        .orderBy('created_at')
        .orderBy('witness_name')
        .execute();
      return rows.map(toCosignature);
    },
    async witnessSettings(tenantId) {
      const row = await db
        .selectFrom('receipt_log_witness_settings')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return (
        row && {
          tenantId: row.tenant_id,
          witnessKeys: JSON.parse(row.witness_keys) as string[],
          required: Number(row.required),
          updatedAt: Number(row.updated_at),
        }
      );
    },
    async putWitnessSettings(s) {
      const values = {
        tenant_id: s.tenantId,
        witness_keys: JSON.stringify(s.witnessKeys),
        required: s.required,
        updated_at: s.updatedAt,
      };
      await db
        .insertInto('receipt_log_witness_settings')
        .values(values)
        .onConflict((oc) =>
          oc.column('tenant_id').doUpdateSet({
            witness_keys: values.witness_keys,
            required: values.required,
            updated_at: values.updated_at,
          }),
        )
        .execute();
    },
    async logKeys() {
      const rows = await db
        .selectFrom('receipt_log_keys')
        .selectAll()
        .orderBy('created_at')
        .orderBy('kid')
        .execute();
      return rows.map((r) => ({
        kid: r.kid,
        publicKeyB64Url: r.public_key_b64url,
        privateKeySealed: r.private_key_sealed,
        createdAt: Number(r.created_at),
      }));
    },
    async insertLogKey(k) {
      await db
        .insertInto('receipt_log_keys')
        .values({
          kid: k.kid,
          public_key_b64url: k.publicKeyB64Url,
          private_key_sealed: k.privateKeySealed,
          created_at: k.createdAt,
        })
        .onConflict((oc) => oc.column('kid').doNothing())
        .execute();
    },
  };
}

function toCosignatureRow(c: LogCosignatureRecord): ReceiptLogCosignaturesTable {
  return {
    tenant_id: c.tenantId,
    tree_size: c.treeSize,
    witness_name: c.witnessName,
    key_id_hex: c.keyIdHex,
    witness_key: c.witnessKey,
    line: c.line,
    created_at: c.createdAt,
  };
}

function toCosignature(row: ReceiptLogCosignaturesTable): LogCosignatureRecord {
  return {
    tenantId: row.tenant_id,
    treeSize: Number(row.tree_size),
    witnessName: row.witness_name,
    keyIdHex: row.key_id_hex,
    witnessKey: row.witness_key,
    line: row.line,
    createdAt: Number(row.created_at),
  };
}
