/**
 * Cursor pagination over any list operation: every list answers `{ data, next_cursor }` and takes
 * `cursor` (and `limit`) in its query; `next_cursor` is null on the last page.
 */

/** One page of a list. */
export interface Page<Item> {
  data: Item[];
  next_cursor: string | null;
}

/** The item type of a list operation's answer (`unknown` until its schema says). */
export type ItemOf<Result> = Result extends { data: (infer Item)[] } ? Item : unknown;

/**
 * Every item of a list, page after page: `fetchPage` is called with `query` and, after the first
 * page, the previous page's `next_cursor`. Pages are fetched as the loop asks for items, so `break`
 * stops fetching.
 * @throws TypeError when an answer is not a page.
 */
export async function* paginate<Query extends object, Result>(
  fetchPage: (query: Query) => Promise<Result>,
  query: Query = {} as Query,
): AsyncGenerator<ItemOf<Result>> {
  let cursor: string | null | undefined = (query as { cursor?: string }).cursor;
  do {
    const page = await fetchPage(cursor === undefined ? query : { ...query, cursor });
    if (!isPage(page)) throw new TypeError('The list answered something other than { data, next_cursor }');
    yield* page.data as ItemOf<Result>[];
    cursor = page.next_cursor;
  } while (cursor);
}

function isPage(value: unknown): value is Page<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return Array.isArray(v.data) && (v.next_cursor === null || typeof v.next_cursor === 'string');
}
