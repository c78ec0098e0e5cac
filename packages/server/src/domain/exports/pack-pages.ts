import type { ReceiptFilter, ReceiptLogPosition } from '../receipts/receipt-log-ports.js';

/** Bytes per chunk handed to the zip: small enough that each one is freed as soon as it is written. */
const CHUNK_BYTES = 64 * 1024;

/** One page of a pack file, already encoded: what the page was read from is garbage by now. */
export interface EncodedPage {
  chunks: Buffer[];
  /** Rows the page read; fewer than the page size means the walk is over. */
  rows: number;
  /** The seq the next page starts after. */
  lastSeq: number | undefined;
}

/**
 * Walks the receipts of the pack's seq window page by page and yields each page's bytes.
 *
 * Each page is read and encoded inside `encodePage`, before the zip consumes a byte of it, so
 * its rows live for one page's CPU time only. If the generator held the rows while it yielded
 * (and the zip deflated on the thread pool), they would outlive two young collections, be
 * promoted, and pile up in the old generation until a full collection: measured on SQLite, the
 * receipts pass promoted ~45 MB/s that way and under 1 MB/s since (docs/performance.md).
 */
export async function* pagedFile(
  filter: ReceiptFilter | undefined,
  start: ReceiptLogPosition | undefined,
  signal: AbortSignal,
  pageSize: number,
  encodePage: (filter: ReceiptFilter, position: ReceiptLogPosition) => Promise<EncodedPage>,
): AsyncGenerator<Buffer> {
  let position = start;
  while (filter && position) {
    signal.throwIfAborted();
    const page = await encodePage(filter, position);
    signal.throwIfAborted();
    yield* page.chunks;
    if (page.rows < pageSize || page.lastSeq === undefined) return;
    position = { ...position, after: page.lastSeq };
  }
}

/**
 * Lines (each ending in a newline) as Buffers of about CHUNK_BYTES. Never one string per page:
 * a string over V8's regular-object limit (~128 KiB) is allocated in large-object space, which
 * only a full collection frees, so RSS would climb with every page.
 */
export function encodeLines(lines: string[]): Buffer[] {
  const chunks: Buffer[] = [];
  let group: string[] = [];
  let size = 0;
  for (const line of lines) {
    const bytes = Buffer.byteLength(line);
    if (size + bytes > CHUNK_BYTES && group.length > 0) {
      chunks.push(encodeGroup(group, size));
      group = [];
      size = 0;
    }
    group.push(line);
    size += bytes;
  }
  if (group.length > 0) chunks.push(encodeGroup(group, size));
  return chunks;
}

function encodeGroup(lines: string[], size: number): Buffer {
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (const line of lines) at += out.write(line, at);
  return out;
}
