import { useCallback, useEffect, useRef, useState } from 'react';

/** One page of a cursor-paginated list, as every list route answers it. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** A list shown a page at a time: what is loaded, whether there is more, and the last error. */
export interface Paged<T> {
  /** The items loaded so far (null until the first page arrives). */
  items: T[] | null;
  /** The cursor of the next page (null: none). */
  next: string | null;
  /** The last failure (a ContentFirewallError, usually), or null. */
  error: unknown;
  loading: boolean;
  /** Appends the next page. */
  loadMore(): void;
  /** Loads the first page again (after a change, or when `fetchPage` changes: new filters). */
  reload(): void;
}

/**
 * A cursor-paginated list: the first page on mount and whenever `fetchPage` changes (memoize it with
 * useCallback over its filters), the next on `loadMore`. An answer that arrives after a newer request
 * was made (filters changed meanwhile) is dropped, so the list always shows the latest filters.
 */
export function usePaged<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Paged<T> {
  const [items, setItems] = useState<T[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);

  const load = useCallback(
    async (cursor: string | undefined) => {
      const mine = ++generation.current;
      setLoading(true);
      setError(null);
      try {
        const page = await fetchPage(cursor);
        if (mine !== generation.current) return;
        setItems((shown) => (cursor && shown ? [...shown, ...page.data] : page.data));
        setNext(page.next_cursor);
      } catch (err) {
        if (mine === generation.current) setError(err);
      } finally {
        if (mine === generation.current) setLoading(false);
      }
    },
    [fetchPage],
  );

  useEffect(() => void load(undefined), [load]);
  return {
    items,
    next,
    error,
    loading,
    loadMore: () => void (next && load(next)),
    reload: () => void load(undefined),
  };
}
