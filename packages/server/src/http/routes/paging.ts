import type { CursorCodec } from '../cursor.js';

/** Keyset paging by id: the cursor holds the last id of the page, MAC-bound to the query. */
export function readAfterId(
  cursors: CursorCodec,
  scope: string,
  cursor: string | undefined,
): string | undefined {
  if (cursor === undefined) return undefined;
  const position = cursors.decode(scope, cursor);
  return typeof position.after === 'string' ? position.after : undefined;
}

export function pageOf<T>(
  cursors: CursorCodec,
  scope: string,
  page: { items: T[]; hasMore: boolean },
  idOf: (item: T) => string,
) {
  const last = page.items.at(-1);
  return {
    data: page.items,
    nextCursor: page.hasMore && last !== undefined ? cursors.encode(scope, { after: idOf(last) }) : null,
  };
}
