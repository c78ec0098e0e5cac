/** What the domain needs from storage for usage (a member of StoreTx in ../ports.ts). */

export interface UsageEventRecord {
  id: string;
  tenantId: string;
  meter: string;
  quantity: number;
  occurredAt: number;
  /** The business row that caused it; (meter, sourceId) is unique, so nothing counts twice. */
  sourceId: string;
}

export interface UsageRepo {
  insert(e: UsageEventRecord): Promise<void>;
}
