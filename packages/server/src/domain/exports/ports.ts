/** Storage of export audit rows: one per export pack requested, whatever its outcome. */

export type ExportStatus = 'running' | 'completed' | 'aborted' | 'failed';

export interface ExportRecord {
  id: string;
  tenantId: string;
  /** The API key that asked for it. */
  apiKeyId: string | null;
  status: ExportStatus;
  rangeFrom: number;
  rangeTo: number;
  filters: Record<string, string>;
  /** The tenant's last receipt seq when the export started: nothing later is in the pack. */
  snapshotSeq: number;
  receiptCount: number;
  manifestSha256: string | null;
  kid: string | null;
  createdAt: number;
  finishedAt: number | null;
}

export interface ExportFinish {
  status: Exclude<ExportStatus, 'running'>;
  receiptCount: number;
  manifestSha256: string | null;
  kid: string | null;
  finishedAt: number;
}

export interface ExportRepo {
  insert(e: ExportRecord): Promise<void>;
  get(tenantId: string, id: string): Promise<ExportRecord | undefined>;
  /** Settles a running export; false when it was no longer running. */
  finish(tenantId: string, id: string, f: ExportFinish): Promise<boolean>;
}

/**
 * Bounds how far a long export lets the process's old generation (and the array buffers it holds)
 * grow between full garbage collections (heap-budget.ts). Export pages call `afterPage` once
 * each; it never waits.
 */
export interface HeapBudget {
  afterPage(): void;
}
