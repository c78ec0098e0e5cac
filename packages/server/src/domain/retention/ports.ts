/**
 * What retention needs from storage. Each prunable table is one entry of storage's target list,
 * pruned in that order (children before parents); receipts and the receipt log are never there.
 */
export interface RetentionCutoffs {
  now: number;
  /** Outbox events fanned out before this, and no longer referenced by any delivery. */
  eventsBefore: number | undefined;
  /** Deliveries completed (and attempts started) before this. */
  deliveriesBefore: number | undefined;
  /** Challenges and registration ceremonies that expired before this and back no receipt or credential. */
  challengesBefore: number | undefined;
  /**
   * Approvals decided (expired, cancelled, rejected; never approved) before this with no approval set
   * and no receipt from their ceremonies; enrollment links used or expired and uniqueActions claims
   * lapsed before this.
   */
  approvalsBefore: number | undefined;
}

export interface RetentionRepo {
  /** The prunable tables, in pruning order. */
  readonly targets: readonly string[];
  /** Deletes up to `limit` rows of `target` that are past their cutoff; returns how many went. */
  pruneBatch(target: string, cutoffs: RetentionCutoffs, limit: number): Promise<number>;
}
