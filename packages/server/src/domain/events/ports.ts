/** What the domain needs from storage for events (a member of StoreTx in ../ports.ts). */

export interface OutboxEventRecord {
  id: string;
  tenantId: string;
  type: string;
  payload: unknown;
  createdAt: number;
}

/** A stored event as its webhook body is built from it (payload as the stored JSON text). */
export interface StoredOutboxEvent {
  id: string;
  type: string;
  createdAt: number;
  payloadJson: string;
}

export interface OutboxRepo {
  insert(e: OutboxEventRecord): Promise<void>;
  /** The tenant's events among `ids` (missing ones were cleaned up by retention). */
  getMany(tenantId: string, ids: readonly string[]): Promise<StoredOutboxEvent[]>;
}
