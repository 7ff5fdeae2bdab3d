import { describe, expect, it } from 'vitest';
import { fetchPage } from '../../lib/keyset-page.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `id_${i}`);

describe('fetchPage', () => {
  it('asks for one row more than the page holds', async () => {
    const asked: number[] = [];
    await fetchPage(50, async (limit) => (asked.push(limit), []));
    expect(asked).toEqual([51]);
  });
  it.each([
    [0, 0, false],
    [3, 3, false],
    [5, 5, false],
    [6, 5, true],
  ])('%i rows fetched for a page of 5: %i kept, more %s', async (fetched, kept, more) => {
    const page = await fetchPage(5, async () => ids(fetched));
    expect(page).toEqual({ rows: ids(kept), more });
  });
});
