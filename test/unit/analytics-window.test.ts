import { describe, expect, it } from 'vitest';
import { ProblemError } from '../../lib/errors.ts';
import { alignWindow, percentChange, splitWindow, WINDOW_CAP_DAYS } from '../../services/analytics.ts';

const DAY = 86_400_000;
const w = (since: string, until: string) => ({ since: new Date(since), until: new Date(until) });
const iso = (x: { since: Date; until: Date; binMs: number }) => [x.since.toISOString(), x.until.toISOString(), x.binMs];

describe('alignWindow', () => {
  it('floors since and ceils until to the grid, on UTC boundaries from the epoch', () => {
    const input = w('2025-05-01T00:07:00+02:00', '2025-05-01T01:20:00.001Z');
    expect(iso(alignWindow(input, '15m'))).toEqual(['2025-04-30T22:00:00.000Z', '2025-05-01T01:30:00.000Z', 900_000]);
    expect(iso(alignWindow(input, 'total'))).toEqual(['2025-04-30T22:00:00.000Z', '2025-05-01T01:30:00.000Z', 900_000]);
    expect(iso(alignWindow(input, '1h'))).toEqual(['2025-04-30T22:00:00.000Z', '2025-05-01T02:00:00.000Z', 3_600_000]);
    expect(iso(alignWindow(input, '1d'))).toEqual(['2025-04-30T00:00:00.000Z', '2025-05-02T00:00:00.000Z', DAY]);
  });

  it('leaves an aligned window as it is, and widens one a millisecond off', () => {
    const aligned = w('2025-05-01T00:15:00Z', '2025-05-01T01:00:00Z');
    expect(iso(alignWindow(aligned, '15m'))).toEqual(['2025-05-01T00:15:00.000Z', '2025-05-01T01:00:00.000Z', 900_000]);
    const off = w('2025-05-01T00:14:59.999Z', '2025-05-01T01:00:00.001Z');
    expect(iso(alignWindow(off, '15m'))).toEqual(['2025-05-01T00:00:00.000Z', '2025-05-01T01:15:00.000Z', 900_000]);
  });

  it('works before the epoch too (floor, not truncation)', () => {
    expect(iso(alignWindow(w('1969-12-31T23:50:00Z', '1969-12-31T23:55:00Z'), '15m'))).toEqual([
      '1969-12-31T23:45:00.000Z',
      '1970-01-01T00:00:00.000Z',
      900_000,
    ]);
  });

  it('refuses a requested window longer than the cap (the cap itself passes)', () => {
    for (const [grid, days] of Object.entries(WINDOW_CAP_DAYS) as [keyof typeof WINDOW_CAP_DAYS, number][]) {
      const since = new Date('2024-01-01T00:07:00Z');
      expect(() => alignWindow({ since, until: new Date(since.getTime() + days * DAY) }, grid)).not.toThrow();
      let thrown: unknown;
      try {
        alignWindow({ since, until: new Date(since.getTime() + days * DAY + 1) }, grid);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, grid).toBeInstanceOf(ProblemError);
      expect((thrown as ProblemError).status).toBe(400);
      expect((thrown as ProblemError).code).toBe('analytics.window_too_wide');
      expect((thrown as ProblemError).extra).toEqual({ max_window_days: days });
    }
  });
});

describe('percentChange', () => {
  it('is null from nothing and rounds to one decimal otherwise', () => {
    expect(percentChange(5, 0)).toBeNull();
    expect(percentChange(0, 0)).toBeNull();
    expect(percentChange(5, 4)).toBe(25);
    expect(percentChange(1, 2)).toBe(-50);
    expect(percentChange(0, 7)).toBe(-100);
    expect(percentChange(4, 3)).toBe(33.3);
    expect(percentChange(2, 3)).toBe(-33.3);
    expect(percentChange(5, 3)).toBe(66.7);
    expect(percentChange(3, 3)).toBe(0);
    expect(percentChange(1000, 1)).toBe(99900);
  });
});

describe('splitWindow', () => {
  const parts = (since: string, until: string) => {
    const p = splitWindow(w(since, until));
    const r = (x: { since: Date; until: Date }) => [x.since.toISOString(), x.until.toISOString()];
    return { inner: p.inner && r(p.inner), edges: p.edges.map(r) };
  };

  it('reads whole buckets from the rollups and the partial edges from the scans', () => {
    expect(parts('2025-05-01T00:07:00Z', '2025-05-01T01:31:00Z')).toEqual({
      inner: ['2025-05-01T00:15:00.000Z', '2025-05-01T01:30:00.000Z'],
      edges: [
        ['2025-05-01T00:07:00.000Z', '2025-05-01T00:15:00.000Z'],
        ['2025-05-01T01:30:00.000Z', '2025-05-01T01:31:00.000Z'],
      ],
    });
    expect(parts('2025-05-01T00:15:00Z', '2025-05-01T01:30:00Z')).toEqual({
      inner: ['2025-05-01T00:15:00.000Z', '2025-05-01T01:30:00.000Z'],
      edges: [],
    });
  });

  it('a window inside one bucket, or across one boundary, has no whole bucket', () => {
    expect(parts('2025-05-01T00:01:00Z', '2025-05-01T00:14:00Z')).toEqual({
      inner: null,
      edges: [['2025-05-01T00:01:00.000Z', '2025-05-01T00:14:00.000Z']],
    });
    expect(parts('2025-05-01T00:10:00Z', '2025-05-01T00:20:00Z')).toEqual({
      inner: null,
      edges: [
        ['2025-05-01T00:10:00.000Z', '2025-05-01T00:15:00.000Z'],
        ['2025-05-01T00:15:00.000Z', '2025-05-01T00:20:00.000Z'],
      ],
    });
  });
});
