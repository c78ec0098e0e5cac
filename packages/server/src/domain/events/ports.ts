/** What the domain needs from storage for events (a member of StoreTx in ../ports.ts). */

export interface OutboxEventRecord {
  id: string;
  tenantId: string;
  type: string;
  payload: unknown;
  createdAt: number;
}

export interface OutboxRepo {
  insert(e: OutboxEventRecord): Promise<void>;
}
