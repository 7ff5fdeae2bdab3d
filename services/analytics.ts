/**
 * Analytics (docs/analytics.md): one organization's scans summed from the 15-minute rollups
 * (jobs/rollup-analytics.ts keeps them, the current partial bucket included). Windows are aligned
 * outward to the answer's grid — `since` down, `until` up, on UTC boundaries — and every answer
 * carries the window it covers; a window longer than its grid's cap is refused.
 */
import { Errors } from '../lib/errors.ts';
import { LatencySketch } from '../lib/latency-sketch.ts';
import type { Db } from '../store/db.ts';
import { GRID_MS, ROLLUP_BUCKET_MS, type Grid } from '../store/analytics-rollup.ts';
import { countsByBin, countsWithPrior, latencySketches, surfaceCounts, topDetectorCounts } from '../store/analytics.ts';

const DAY_MS = GRID_MS['1d'];

/** The time-series and latency grids (the `bucket` parameter) and their bin lengths. */
export const ANALYTICS_BUCKETS = GRID_MS;
export type AnalyticsBucket = Grid;
export const ANALYTICS_BUCKET_NAMES = ['15m', '1h', '1d'] as const satisfies readonly AnalyticsBucket[];

/**
 * The longest window (days) per grid; `total` for the answers that are one total over the window
 * (summary, by surface, top detectors, read on the 15-minute grid). Bounds both the points of an
 * answer (15m: 672, 1h: 2,208, 1d: 400) and the rollup rows it reads (38,400 at most, per window).
 */
export const WINDOW_CAP_DAYS = { '15m': 7, '1h': 92, '1d': 400, total: 400 } as const;

export interface WindowInput {
  since: Date;
  until: Date;
}

/** A window aligned to a grid: `since` inclusive, `until` exclusive, both multiples of `binMs` from the epoch. */
export interface Window {
  since: Date;
  until: Date;
  binMs: number;
}

/**
 * `input` aligned outward to `binMs` (`since` floored, `until` ceiled).
 * @throws ProblemError 400 analytics.window_too_wide when the requested window exceeds the cap.
 */
export function alignWindow(input: WindowInput, grid: AnalyticsBucket | 'total'): Window {
  const binMs = grid === 'total' ? ROLLUP_BUCKET_MS : ANALYTICS_BUCKETS[grid];
  const capDays = WINDOW_CAP_DAYS[grid];
  if (input.until.getTime() - input.since.getTime() > capDays * DAY_MS) {
    throw Errors.analyticsWindowTooWide(grid, capDays);
  }
  const since = Math.floor(input.since.getTime() / binMs) * binMs;
  const until = Math.ceil(input.until.getTime() / binMs) * binMs;
  return { since: new Date(since), until: new Date(until), binMs };
}

const presentWindow = (w: Window) => ({ since: w.since.toISOString(), until: w.until.toISOString() });

/** The change from `prior` to `current` in percent (one decimal), or null when `prior` is 0: no rate of change from nothing. */
export function percentChange(current: number, prior: number): number | null {
  if (prior === 0) return null;
  return Math.round(((current - prior) / prior) * 1000) / 10;
}

/** Totals by action over the window, and their change against the window of equal length before it. */
export async function analyticsSummary(db: Db, orgId: string, input: WindowInput) {
  const w = alignWindow(input, 'total');
  const prior = new Date(w.since.getTime() - (w.until.getTime() - w.since.getTime()));
  const counts = await countsWithPrior(db, orgId, prior, w.since, w.until);
  const { total, allowed, flagged, warned, blocked } = counts.current;
  return {
    window: presentWindow(w),
    total,
    allowed,
    flagged,
    warned,
    blocked,
    prior_period_delta: {
      total_pct: percentChange(total, counts.prior.total),
      blocked_pct: percentChange(blocked, counts.prior.blocked),
    },
  };
}

/** Counts by action per bin of the grid: every bin of the window, those without scans as zeros. */
export async function analyticsTimeSeries(db: Db, orgId: string, input: WindowInput & { bucket: AnalyticsBucket }) {
  const w = alignWindow(input, input.bucket);
  const rows = new Map((await countsByBin(db, orgId, w.since, w.until, w.binMs)).map((r) => [r.t, r]));
  const points = [];
  for (let t = w.since.getTime(); t < w.until.getTime(); t += w.binMs) {
    const r = rows.get(t);
    points.push({
      t: new Date(t).toISOString(),
      allowed: r?.allowed ?? 0,
      flagged: r?.flagged ?? 0,
      warned: r?.warned ?? 0,
      blocked: r?.blocked ?? 0,
    });
  }
  return { window: presentWindow(w), bucket: input.bucket, points };
}

/** Scans per surface over the window; surfaces without traffic are left out. */
export async function analyticsBySurface(db: Db, orgId: string, input: WindowInput) {
  const w = alignWindow(input, 'total');
  return { window: presentWindow(w), items: await surfaceCounts(db, orgId, w.since, w.until) };
}

/**
 * The detectors that reported findings in the most scans over the window, with each detector's
 * category (`categoryOf`: the engine's registry; null for a name it no longer knows).
 */
export async function analyticsTopDetectors(
  db: Db,
  orgId: string,
  input: WindowInput & { limit: number },
  categoryOf: (detector: string) => string | null,
) {
  const w = alignWindow(input, 'total');
  const rows = await topDetectorCounts(db, orgId, w.since, w.until, input.limit);
  return {
    window: presentWindow(w),
    items: rows.map((r) => ({ detector: r.detector, category: categoryOf(r.detector), count: r.count })),
  };
}

const ms = (v: number | null) => (v === null ? null : Math.round(v * 1000) / 1000);

/** p50/p95/p99 scan latency per bin of the grid (DDSketch: within 1 % of the exact value, the bin's sketch read whole); bins without scans are left out. */
export async function analyticsLatency(db: Db, orgId: string, input: WindowInput & { bucket: AnalyticsBucket }) {
  const w = alignWindow(input, input.bucket);
  const rows = await latencySketches(db, orgId, w.since, w.until, input.bucket);
  return {
    window: presentWindow(w),
    bucket: input.bucket,
    points: rows.map(({ t, sketch }) => {
      const s = LatencySketch.fromJSON(sketch);
      return {
        t: new Date(Number(t)).toISOString(),
        p50_ms: ms(s.quantile(0.5)),
        p95_ms: ms(s.quantile(0.95)),
        p99_ms: ms(s.quantile(0.99)),
        count: s.count,
      };
    }),
  };
}
