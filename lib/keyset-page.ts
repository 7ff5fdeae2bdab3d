/** One page of a list and whether another follows. */
export interface Page<T> {
  rows: T[];
  more: boolean;
}

/**
 * Reads one page of at most `limit` rows: `fetch` is asked for one row more, whose presence (it is
 * dropped) says whether another page follows, without counting the rest.
 */
export async function fetchPage<T>(limit: number, fetch: (limit: number) => Promise<T[]>): Promise<Page<T>> {
  const rows = await fetch(limit + 1);
  const more = rows.length > limit;
  return { rows: more ? rows.slice(0, limit) : rows, more };
}
