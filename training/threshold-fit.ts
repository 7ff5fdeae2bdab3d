/**
 * Thresholds at a stated benign false-alarm rate (`npm run train:thresholds`). A benign pool mixes origins
 * of very different sizes (thousands of public rows, hundreds written by the team); the rate a threshold
 * stands for is the mean of the origins' rates, so no single origin sets it alone.
 */
import type { Thresholds } from '../inference/manifest.ts';

/** One benign row: its raw score, where it came from, and the level another alarm already gives it (0: none). */
export interface PoolRow {
  score: number;
  origin: string;
  /** a level on the published scale another part of the detector raises for this row regardless of `score` */
  floor: number;
}

/** The benign false-alarm rates the published thresholds stand for (warn, flag, block). */
export const TARGET_FPR: Thresholds = { warn_above: 0.05, flag_above: 0.02, block_above: 0.005 };

const LEVELS = ['warn_above', 'flag_above', 'block_above'] as const;

/** Mean over origins of the share of rows that alarm at `level`: raw score above `anchor`, or floor above `level`. */
export function macroRate(rows: readonly PoolRow[], anchor: number, level: number): number {
  const by = new Map<string, { n: number; hit: number }>();
  for (const r of rows) {
    const c = by.get(r.origin) ?? { n: 0, hit: 0 };
    c.n++;
    if (r.score > anchor || r.floor > level) c.hit++;
    by.set(r.origin, c);
  }
  let sum = 0;
  for (const c of by.values()) sum += c.hit / c.n;
  return by.size ? sum / by.size : 0;
}

/**
 * The smallest raw anchors at which the pool's mean rate is at most each target: `targets[k]` for the
 * published level `levels[k]`. Anchors are strictly increasing and below 1; where no anchor reaches a
 * target (other alarms alone pass it), the anchor is the highest score seen.
 */
export function anchorsAtRates(rows: readonly PoolRow[], targets: Thresholds, levels: Thresholds): Thresholds {
  if (rows.length === 0) throw new Error('no benign rows');
  const candidates = [0, ...new Set(rows.map((r) => r.score))].sort((a, b) => a - b);
  const out = {} as Thresholds;
  let prev = -Infinity;
  for (const k of LEVELS) {
    // macroRate is non-increasing in the anchor: binary search the first candidate that meets the target
    let lo = 0;
    let hi = candidates.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (macroRate(rows, candidates[mid]!, levels[k]) <= targets[k]) hi = mid;
      else lo = mid + 1;
    }
    const step = 1e-6;
    const a = Math.min(1 - step * (LEVELS.length - LEVELS.indexOf(k)), Math.max(candidates[lo]!, prev + step));
    out[k] = a;
    prev = a;
  }
  return out;
}

/** Each origin's alarm rate at each level, with these anchors. */
export function originRates(
  rows: readonly PoolRow[],
  anchors: Thresholds,
  levels: Thresholds,
): Record<string, Thresholds> {
  const origins = [...new Set(rows.map((r) => r.origin))].sort();
  return Object.fromEntries(
    origins.map((o) => {
      const mine = rows.filter((r) => r.origin === o);
      const rate = {} as Thresholds;
      for (const k of LEVELS) rate[k] = macroRate(mine, anchors[k], levels[k]);
      return [o, rate];
    }),
  );
}
