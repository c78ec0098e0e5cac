/** Row types of the receipt log's tables (ADR 0009), in the conventions of `schema.ts`. */

export type ReceiptLogStateTable = {
  tenant_id: string;
  tree_size: number;
  /** When the last checkpoint was signed (epoch ms); 0 for a log claimed before its first. */
  updated_at: number;
  /** The receipt-log job's lease on this log (epoch ms), null when none (migration 0013). */
  claimed_until: number | null;
};

export type ReceiptLogTilesTable = {
  tenant_id: string;
  level: number;
  tile_index: number;
  hashes: Buffer;
};

export type ReceiptLogCheckpointsTable = {
  tenant_id: string;
  tree_size: number;
  root_hash: Buffer;
  note: string;
  created_at: number;
};

export type ReceiptLogCosignaturesTable = {
  tenant_id: string;
  tree_size: number;
  witness_name: string;
  key_id_hex: string;
  witness_key: string;
  line: string;
  created_at: number;
};

export type ReceiptLogWitnessSettingsTable = {
  tenant_id: string;
  /** JSON array of verifier keys. */
  witness_keys: string;
  required: number;
  updated_at: number;
};

export type ReceiptLogKeysTable = {
  kid: string;
  public_key_b64url: string;
  private_key_sealed: string;
  created_at: number;
};
