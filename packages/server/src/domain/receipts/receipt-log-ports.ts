/**
 * The receipt log: every receipt of a tenant in `seq` order. `seq` is per tenant, gap-free and
 * assigned inside the receipt's transaction while the tenant's counter row is locked, so seq
 * order is commit order: once seq n is visible, every seq below n is too. Keyset paging on seq
 * therefore neither repeats nor skips while receipts arrive (see docs/adr/0005-receipt-seq-and-export-packs.md).
 */
import type { ChallengeRecord } from '../presence/ports.js';
import type { ReceiptRecord } from './ports.js';

export interface ReceiptFilter {
  /** Inclusive lower bound on issuedAt (epoch ms). */
  from?: number | undefined;
  /** Exclusive upper bound on issuedAt (epoch ms). */
  to?: number | undefined;
  subject?: string | undefined;
  actionHashHex?: string | undefined;
  /** The credential's service id (`cred_…`). */
  credentialRef?: string | undefined;
}

/** Where a walk stands: receipts strictly beyond `after`, up to `stop` inclusive (null: open). */
export interface ReceiptLogPosition {
  order: 'asc' | 'desc';
  after: number | null;
  stop: number | null;
}

export interface LoggedReceipt {
  seq: number;
  receipt: ReceiptRecord;
  challenge: ChallengeRecord;
}

export interface ReceiptLogRepo {
  /** The lowest and highest seq among receipts issued in [from, to); undefined when there are none. */
  seqWindow(
    tenantId: string,
    range: { from?: number | undefined; to?: number | undefined },
  ): Promise<{ low: number; high: number } | undefined>;
  /** The highest seq issued so far (0 before the first receipt). */
  lastSeq(tenantId: string): Promise<number>;
  /** Up to `limit` receipts after `position`, in its order, with their challenges. */
  list(
    tenantId: string,
    filter: ReceiptFilter,
    position: ReceiptLogPosition,
    limit: number,
  ): Promise<LoggedReceipt[]>;
  /** The same receipts as `list`, as their seq and id only (the pack's inclusion proofs need no more). */
  listLeaves(
    tenantId: string,
    filter: ReceiptFilter,
    position: ReceiptLogPosition,
    limit: number,
  ): Promise<{ seq: number; receiptId: string }[]>;
}
