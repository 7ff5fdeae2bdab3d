/**
 * Analytics (docs/analytics.md): one organization's scans over exactly the requested window, `since`
 * inclusive and `until` exclusive (the spec). The whole 15-minute buckets inside the window are summed
 * from the rollups (jobs/rollup-analytics.ts keeps them, the current partial bucket included); the
 * partial buckets at its two edges, less than 15 minutes each, are counted from their scans. Time
 * series bins stay on the grid's UTC boundaries: a first or last bin the window cuts counts only its
 * part inside the window. Latency reads whole bins (sketches cannot be cut), on the window aligned
 * outward to its grid. A window longer than its grid's cap is refused.
 */
import { Errors } from '../lib/errors.ts';
import { LatencySketch } from '../lib/latency-sketch.ts';
import type { Db } from '../store/db.ts';
import { GRID_MS, ROLLUP_BUCKET_MS, type Grid } from '../store/analytics-rollup.ts';
import {
  countsByBin,
  countsIn,
  edgeCountsByBin,
  edgeNameCounts,
  latencySketches,
  rangesWithScans,
  rollupNameCounts,
  type ActionCounts,
  type Range,
} from '../store/analytics.ts';

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

const presentWindow = (w: Range) => ({ since: w.since.toISOString(), until: w.until.toISOString() });

/** The requested window, its length checked against the grid's cap. @throws as {@link alignWindow}. */
function exactWindow(input: WindowInput, grid: AnalyticsBucket | 'total'): Range {
  alignWindow(input, grid);
  return { since: input.since, until: input.until };
}

/** A window split on the rollup grid: the whole buckets inside it (null: none) and the partial edges. */
export interface WindowParts {
  inner: Range | null;
  edges: Range[];
}

/** `w` split into the whole 15-minute buckets it covers and its partial edge buckets (each < 15 min). */
export function splitWindow(w: Range): WindowParts {
  const [since, until] = [w.since.getTime(), w.until.getTime()];
  const innerSince = Math.ceil(since / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS;
  const innerUntil = Math.floor(until / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS;
  if (innerSince > innerUntil) return { inner: null, edges: [w] }; // inside one bucket
  const edges: Range[] = [];
  if (since < innerSince) edges.push({ since: w.since, until: new Date(innerSince) });
  if (innerUntil < until) edges.push({ since: new Date(innerUntil), until: w.until });
  const inner = innerSince < innerUntil ? { since: new Date(innerSince), until: new Date(innerUntil) } : null;
  return { inner, edges };
}

const ZERO: ActionCounts = { total: 0, allowed: 0, flagged: 0, warned: 0, blocked: 0 };
const addCounts = (a: ActionCounts, b: ActionCounts): ActionCounts => ({
  total: a.total + b.total,
  allowed: a.allowed + b.allowed,
  flagged: a.flagged + b.flagged,
  warned: a.warned + b.warned,
  blocked: a.blocked + b.blocked,
});

/** The parts of an edge's bucket outside the edge (none, one or two ranges). */
function restOfBucket(edge: Range): Range[] {
  const start = Math.floor(edge.since.getTime() / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS;
  const rest: Range[] = [];
  if (start < edge.since.getTime()) rest.push({ since: new Date(start), until: edge.since });
  if (edge.until.getTime() < start + ROLLUP_BUCKET_MS)
    rest.push({ since: edge.until, until: new Date(start + ROLLUP_BUCKET_MS) });
  return rest;
}

/**
 * `w` split as {@link splitWindow} splits it, except that an edge whose bucket holds no scan outside
 * the edge joins the whole buckets: its bucket's rollup row counts exactly its scans. A window ending
 * now (the dashboard's) thus reads its current bucket from the rollup instead of up to 15 minutes of
 * scans; an index probe per edge decides.
 */
async function planWindow(db: Db, orgId: string, w: Range): Promise<WindowParts> {
  const { inner, edges } = splitWindow(w);
  const rests = edges.map(restOfBucket);
  const found = await rangesWithScans(db, orgId, rests.flat());
  let at = 0;
  const kept: Range[] = [];
  let [since, until] = inner ? [inner.since.getTime(), inner.until.getTime()] : [Infinity, -Infinity];
  for (const [i, edge] of edges.entries()) {
    const busy = found.slice(at, (at += rests[i]!.length)).some(Boolean);
    if (busy) {
      kept.push(edge);
      continue;
    }
    const start = Math.floor(edge.since.getTime() / ROLLUP_BUCKET_MS) * ROLLUP_BUCKET_MS;
    since = Math.min(since, start);
    until = Math.max(until, start + ROLLUP_BUCKET_MS);
  }
  return { inner: since < until ? { since: new Date(since), until: new Date(until) } : null, edges: kept };
}

/** Counts by action per `binMs` bin (epoch ms) in exactly `w`: rollups inside, scans at the edges. */
async function exactCountsByBin(db: Db, orgId: string, w: Range, binMs: number): Promise<Map<number, ActionCounts>> {
  const { inner, edges } = await planWindow(db, orgId, w);
  const [whole, partial] = await Promise.all([
    inner ? countsByBin(db, orgId, inner.since, inner.until, binMs) : [],
    edgeCountsByBin(db, orgId, edges, binMs),
  ]);
  const bins = new Map<number, ActionCounts>();
  for (const r of [...whole, ...partial]) bins.set(Number(r.t), addCounts(bins.get(Number(r.t)) ?? ZERO, r));
  return bins;
}

/** Counts by action in exactly `w`. */
async function exactCounts(db: Db, orgId: string, w: Range): Promise<ActionCounts> {
  const { inner, edges } = await planWindow(db, orgId, w);
  const [whole, partial] = await Promise.all([
    inner ? countsIn(db, orgId, inner.since, inner.until) : ZERO,
    edgeCountsByBin(db, orgId, edges, DAY_MS),
  ]);
  return partial.reduce(addCounts, whole);
}

/**
 * Scans per name of the rollups' `surfaces` or `detectors` map in exactly `w`, names with none left
 * out, count descending, ties by name (bytewise), at most `limit` (null: all).
 */
async function exactNameCounts(
  db: Db,
  column: 'surfaces' | 'detectors',
  orgId: string,
  w: Range,
  limit: number | null,
) {
  const { inner, edges } = await planWindow(db, orgId, w);
  const [whole, partial] = await Promise.all([
    inner ? rollupNameCounts(db, column, orgId, inner.since, inner.until, null) : [],
    edgeNameCounts(db, column, orgId, edges),
  ]);
  const counts = new Map<string, number>();
  for (const r of [...whole, ...partial]) counts.set(r.name, (counts.get(r.name) ?? 0) + Number(r.count));
  const bytewise = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
  const ranked = [...counts]
    .filter(([, n]) => n > 0)
    .sort(([a, m], [b, n]) => n - m || bytewise(a, b))
    .map(([name, count]) => ({ name, count }));
  return limit === null ? ranked : ranked.slice(0, limit);
}

/** The change from `prior` to `current` in percent (one decimal), or null when `prior` is 0: no rate of change from nothing. */
export function percentChange(current: number, prior: number): number | null {
  if (prior === 0) return null;
  return Math.round(((current - prior) / prior) * 1000) / 10;
}

/** Totals by action over the window, and their change against the window of equal length before it. */
export async function analyticsSummary(db: Db, orgId: string, input: WindowInput) {
  const w = exactWindow(input, 'total');
  const prior = { since: new Date(2 * w.since.getTime() - w.until.getTime()), until: w.since };
  const [current, before] = await Promise.all([exactCounts(db, orgId, w), exactCounts(db, orgId, prior)]);
  const { total, allowed, flagged, warned, blocked } = current;
  return {
    window: presentWindow(w),
    total,
    allowed,
    flagged,
    warned,
    blocked,
    prior_period_delta: {
      total_pct: percentChange(total, before.total),
      blocked_pct: percentChange(blocked, before.blocked),
    },
  };
}

/**
 * Counts by action per bin of the grid: every bin the window touches, from `since` floored to `until`
 * ceiled, those without scans as zeros; a bin the window cuts counts its part inside the window.
 */
export async function analyticsTimeSeries(db: Db, orgId: string, input: WindowInput & { bucket: AnalyticsBucket }) {
  const w = exactWindow(input, input.bucket);
  const grid = alignWindow(input, input.bucket);
  const rows = await exactCountsByBin(db, orgId, w, grid.binMs);
  const points = [];
  for (let t = grid.since.getTime(); t < grid.until.getTime(); t += grid.binMs) {
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
  const w = exactWindow(input, 'total');
  const rows = await exactNameCounts(db, 'surfaces', orgId, w, null);
  return { window: presentWindow(w), items: rows.map((r) => ({ surface: r.name, count: r.count })) };
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
  const w = exactWindow(input, 'total');
  const rows = await exactNameCounts(db, 'detectors', orgId, w, input.limit);
  return {
    window: presentWindow(w),
    items: rows.map((r) => ({ detector: r.name, category: categoryOf(r.name), count: r.count })),
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
