import type { ReceiptFilter, ReceiptLogPosition } from '../receipts/receipt-log-ports.js';
import type { Deps } from '../deps.js';
import type { PackState } from './pack-state.js';
import type { HeapBudget } from './ports.js';

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

/** A pack file written by walking the pack's receipts in pages of `pageSize` (`pagedFile`). */
export type ReceiptPagesFile = (
  deps: Pick<Deps, 'store' | 'heapBudget'>,
  state: PackState,
  signal: AbortSignal,
  pageSize: number,
) => AsyncGenerator<Buffer>;

/** Where a pack file's walk starts and what bounds it. */
export interface PageWalk {
  filter: ReceiptFilter | undefined;
  start: ReceiptLogPosition | undefined;
  signal: AbortSignal;
  pageSize: number;
  /** Told after every page, so a long walk cannot let garbage pile up in the old generation. */
  heapBudget: HeapBudget;
}

/**
 * Walks the receipts of the pack's seq window page by page and yields each page's bytes.
 *
 * Each page is read and encoded inside `encodePage`, before the zip consumes a byte of it, so
 * its rows live for one page's CPU time only. If the generator held the rows while it yielded
 * (and the zip deflated on the thread pool), they would outlive two young collections, be
 * promoted, and pile up in the old generation until a full collection: measured on SQLite, the
 * receipts pass promoted ~45 MB/s that way and under 1 MB/s since (docs/performance.md). What
 * is still promoted is bounded by the heap budget.
 */
export async function* pagedFile(
  walk: PageWalk,
  encodePage: (filter: ReceiptFilter, position: ReceiptLogPosition) => Promise<EncodedPage>,
): AsyncGenerator<Buffer> {
  const { filter, signal, pageSize } = walk;
  let position = walk.start;
  while (filter && position) {
    signal.throwIfAborted();
    const page = await encodePage(filter, position);
    walk.heapBudget.afterPage();
    signal.throwIfAborted();
    yield* page.chunks;
    if (page.rows < pageSize || page.lastSeq === undefined) return;
    position = { ...position, after: page.lastSeq };
  }
}

/**
 * Collects a page's text into Buffers of about CHUNK_BYTES, written piece by piece as it is made.
 * The pieces are garbage at once, a page never holds its lines as strings, and a line is never
 * built as one concatenated string: writing a concatenation makes V8 flatten it first, a copy of
 * the whole line per line. Never one string per page either: a string over V8's regular-object
 * limit (~128 KiB) is allocated in large-object space, which only a full collection frees, so RSS
 * would climb with every page.
 */
export class PackChunks {
  readonly #chunks: Buffer[] = [];
  #chunk: Buffer | undefined;
  #at = 0;

  /** Appends `text`; a piece is never split between two chunks. */
  write(text: string): void {
    if (text.length === 0) return;
    const room = this.#chunk ? this.#chunk.length - this.#at : 0;
    // A UTF-16 code unit is at most 3 UTF-8 bytes: count the bytes only near a chunk's end.
    if (text.length * 3 > room && Buffer.byteLength(text) > room) {
      this.#close();
      if (text.length * 3 > CHUNK_BYTES && Buffer.byteLength(text) > CHUNK_BYTES) {
        this.#chunks.push(Buffer.from(text));
        return;
      }
      this.#chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    }
    this.#at += this.#chunk!.write(text, this.#at);
  }

  /** The page's bytes; the writer is not used after this. */
  finish(): Buffer[] {
    this.#close();
    return this.#chunks;
  }

  #close(): void {
    if (this.#chunk && this.#at > 0) this.#chunks.push(this.#chunk.subarray(0, this.#at));
    this.#chunk = undefined;
    this.#at = 0;
  }
}
