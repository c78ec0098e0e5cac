/**
 * What the receipt log needs from storage. The tree lives in C2SP tlog-tiles form: a tile
 * (level L, index N) holds up to 256 consecutive node hashes of tree level 8·L, starting at node
 * 256·N; a partial tile grows in place until it holds 256. See docs/adr/0009-receipt-log.md.
 */
export interface TileKey {
  level: number;
  index: number;
}

export interface StoredTile extends TileKey {
  /** width × 32 bytes of hashes. */
  hashes: Buffer;
}

export interface LogCheckpointRecord {
  tenantId: string;
  treeSize: number;
  rootHash: Buffer;
  /** The checkpoint body and the service's signature line: a C2SP signed note, no cosignatures. */
  note: string;
  createdAt: number;
}

export interface LogCosignatureRecord {
  tenantId: string;
  treeSize: number;
  witnessName: string;
  keyIdHex: string;
  /** The witness's verifier key (`name+id+base64(0x04 || key)`). */
  witnessKey: string;
  /** The `— name base64` line exactly as posted. */
  line: string;
  createdAt: number;
}

export interface LogKeyRecord {
  kid: string;
  publicKeyB64Url: string;
  privateKeySealed: string;
  createdAt: number;
}

export interface LogWitnessSettings {
  tenantId: string;
  /** Cosignatures of these witness keys a pack's checkpoint must carry, at least `required` of them. */
  witnessKeys: string[];
  required: number;
  updatedAt: number;
}

export interface ReceiptLogStore {
  /** The tree size integrated so far (0 when the log is empty). */
  treeSize(tenantId: string): Promise<number>;
  /**
   * Logs due for a checkpoint, with their integrated size and last seq: tenants with receipts beyond
   * their integrated tree size that have no checkpoint yet, whose last checkpoint was made at or
   * before `checkpointedBy` (ms), or that are more than `backlog` receipts behind whatever their
   * last checkpoint's age. Logs with no checkpoint come first, then the oldest checkpoints: a limit
   * serves every tenant in turn. Logs another process holds a lease on at `lease.now` are left out.
   * On PostgreSQL the logs returned are leased to the caller until `lease.until`, in the same
   * statement: another process's call passes them by until then, or until their next checkpoint
   * (appendTiles) ends the lease. So processes share the due logs instead of all integrating the
   * same ones and all but one losing the compare-and-set. SQLite leases nothing: one process owns
   * the database.
   */
  claimDueLogs(
    limit: number,
    due: { checkpointedBy: number; backlog: number },
    lease: { now: number; until: number },
  ): Promise<{ tenantId: string; treeSize: number; lastSeq: number }[]>;
  /** Receipt hashes (hex) of seq in (after, after + limit], in seq order. */
  receiptHashes(tenantId: string, after: number, limit: number): Promise<{ seq: number; hashHex: string }[]>;
  /**
   * In one read: the integrated tree size and the receipt hashes (hex) after it, at most `limit`,
   * in seq order. Undefined when no receipt waits beyond the tree.
   */
  leavesToIntegrate(
    tenantId: string,
    limit: number,
  ): Promise<{ fromSize: number; leaves: { seq: number; hashHex: string }[] } | undefined>;
  readTiles(tenantId: string, keys: readonly TileKey[]): Promise<StoredTile[]>;
  /**
   * Writes the grown tiles and the checkpoint of the new size, only if the integrated size is
   * still `fromSize` (compare-and-set: another process may have integrated first). False then.
   * Ends any lease on the log (claimDueLogs). Call inside store.transaction. On SQLite three
   * statements (the compare-and-set, every tile, the checkpoint); on PostgreSQL one.
   */
  appendTiles(
    tenantId: string,
    fromSize: number,
    tiles: readonly StoredTile[],
    checkpoint: LogCheckpointRecord,
  ): Promise<boolean>;
  latestCheckpoint(tenantId: string): Promise<LogCheckpointRecord | undefined>;
  checkpointAt(tenantId: string, treeSize: number): Promise<LogCheckpointRecord | undefined>;
  /** The newest checkpoint of at least `atLeastSize` leaves carrying cosignatures of at least `min` of these witness keys. */
  witnessedCheckpoint(
    tenantId: string,
    atLeastSize: number,
    witnessKeys: readonly string[],
    min: number,
  ): Promise<LogCheckpointRecord | undefined>;
  insertCosignature(c: LogCosignatureRecord): Promise<boolean>;
  cosignatures(tenantId: string, treeSize: number): Promise<LogCosignatureRecord[]>;
  witnessSettings(tenantId: string): Promise<LogWitnessSettings | undefined>;
  putWitnessSettings(s: LogWitnessSettings): Promise<void>;
  logKeys(): Promise<LogKeyRecord[]>;
  insertLogKey(k: LogKeyRecord): Promise<void>;
  /** issuedAt (epoch ms) of the oldest receipt not yet integrated, over all tenants; null when none. */
  oldestUnintegratedAt(): Promise<number | null>;
}
