import type { Page } from './wire-types.js';

/**
 * Every item of a paginated list, fetching pages lazily as the loop advances:
 * `for await (const receipt of client.receipts.list({ from }))`. Each page request is retried
 * like any other call; the opaque cursor is passed back exactly as the service issued it.
 */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {}

  /** Whole pages, for callers that checkpoint `nextCursor` (to resume a long walk later). */
  async *pages(): AsyncGenerator<Page<T>, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.fetchPage(cursor);
      yield page;
      if (page.nextCursor === null || page.nextCursor === undefined) return;
      if (page.nextCursor === cursor) throw new Error('the service returned the same cursor twice');
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }

  /** Collects up to `max` items (default 10,000) into an array. */
  async toArray(max = 10_000): Promise<T[]> {
    const items: T[] = [];
    for await (const item of this) {
      if (items.length >= max) break;
      items.push(item);
    }
    return items;
  }
}
