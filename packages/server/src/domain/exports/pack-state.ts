import { createHash } from 'node:crypto';
import type { PackFile } from '@presence/contract';
import type { LoggedReceipt, ReceiptFilter, ReceiptLogPosition } from '../receipts/receipt-log-ports.js';
import type { ExportRecord } from './ports.js';
import type { PackLog } from './write-log-files.js';

/** One file of the pack. Consume `body` to the end before asking for the next entry. */
export interface PackEntry {
  name: string;
  body: AsyncIterable<Buffer>;
}

/** What an export learns while it streams: the manifest is built from it at the end. */
export interface PackState {
  record: ExportRecord;
  filter: ReceiptFilter | undefined;
  /** Where the receipt walk starts; undefined when nothing can match. */
  start: ReceiptLogPosition | undefined;
  generatedAt: number;
  receipts: {
    count: number;
    firstSeq: number | null;
    lastSeq: number | null;
    firstIssuedAt: number | null;
    lastIssuedAt: number | null;
  };
  credentialRefs: Set<string>;
  policyIds: Set<string>;
  serviceKeyCount: number;
  credentialCount: number;
  policyCount: number;
  /** Digests of the data files, appended as each one is fully written. */
  files: PackFile[];
  manifestSha256: string | null;
  kid: string | null;
  /** The receipt-log checkpoint and proofs of the pack; undefined for an empty tenant. */
  log: PackLog | undefined;
  /** Whether the pack has approvals.ndjson (an approval set was decided in its range). */
  approvals: boolean;
  approvalSetCount: number;
}

export function newPackState(
  record: ExportRecord,
  filter: ReceiptFilter | undefined,
  start: ReceiptLogPosition | undefined,
  generatedAt: number,
): PackState {
  return {
    record,
    filter,
    start,
    generatedAt,
    receipts: { count: 0, firstSeq: null, lastSeq: null, firstIssuedAt: null, lastIssuedAt: null },
    credentialRefs: new Set(),
    policyIds: new Set(),
    serviceKeyCount: 0,
    credentialCount: 0,
    policyCount: 0,
    files: [],
    manifestSha256: null,
    kid: null,
    log: undefined,
    approvals: false,
    approvalSetCount: 0,
  };
}

/** Counts a receipt written to receipts.ndjson and remembers what the snapshots must hold. */
export function noteReceipt(state: PackState, entry: LoggedReceipt, policyId: string): void {
  const r = state.receipts;
  r.count += 1;
  r.firstSeq ??= entry.seq;
  r.firstIssuedAt ??= entry.receipt.issuedAt;
  r.lastSeq = entry.seq;
  r.lastIssuedAt = entry.receipt.issuedAt;
  state.credentialRefs.add(entry.receipt.credentialRef);
  state.policyIds.add(policyId);
}

/** Passes chunks through, hashing and counting them; records the file's digest at the end. */
export async function* measureFile(
  name: string,
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  files: PackFile[],
): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    hash.update(chunk);
    bytes += chunk.length;
    yield chunk;
  }
  files.push({ name, sha256: hash.digest('hex'), bytes });
}
