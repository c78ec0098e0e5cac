/** How long finished rows are kept before the retention job prunes them; 0 days keeps them forever. */
export interface RetentionSettings {
  /** Outbox events after their fan-out (and after their deliveries are pruned). */
  eventsDays: number;
  /** Webhook deliveries after completion, and their attempts. */
  deliveriesDays: number;
  /** Grace after expiry for challenges and registration ceremonies that back no receipt or credential. */
  challengesDays: number;
  /**
   * Approvals that ended without an approval set (expired, cancelled, rejected) and back no receipt,
   * with their approvers and ceremonies; used or expired enrollment links; lapsed uniqueActions claims.
   */
  approvalsDays: number;
  /** Rows deleted per statement: small, so no batch holds a lock for long. */
  batchSize: number;
}

export const DEFAULT_RETENTION_SETTINGS: RetentionSettings = {
  eventsDays: 30,
  deliveriesDays: 30,
  challengesDays: 30,
  approvalsDays: 90,
  batchSize: 500,
};
