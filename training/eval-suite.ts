/**
 * The figures of `npm run eval -- --suite validation` (pure: scored rows in, a report object out):
 * recall at benign-FPR cuts fixed on a whole file per surface group, recall and FPR at the shipped
 * warn / flag / block thresholds, per family or source, per language, per surface group, and the team's
 * own sets against the same cuts. "Above" a threshold means score > t, as `engine/decision.ts` decides.
 */
import type { SurfaceGroup } from '../engine/detector.ts';
import { SURFACE_GROUPS } from '../engine/detector.ts';
import type { Thresholds } from '../inference/manifest.ts';
import { rocAuc, thresholdForFpr } from './metrics.ts';

/** Benign FPRs of the whole-file cuts that recall is read at. */
export const RECALL_FPRS = [0.01, 0.02, 0.05] as const;
/** Benign FPRs a surface group's thresholds are proposed for. */
export const GROUP_FPRS = [0.05, 0.02, 0.005] as const;
export const LEVELS = ['warn', 'flag', 'block'] as const;
export type Level = (typeof LEVELS)[number];
/** Languages with fewer rows go into one list instead of the table. */
export const MIN_LANGUAGE_ROWS = 50;

/** One scored input row (what `<detector>-<tier>.scores.jsonl` holds: no text). */
export interface SuiteRow {
  score: number;
  label: 0 | 1;
  /** The input it came from: `validation`, `canonical-overrides`, `benign-pool`, `functional`. */
  set: string;
  surface_group: SurfaceGroup;
  family?: string;
  source?: string;
  lang?: string;
  intent?: string;
  /** The detector's note when it did not run as asked (a fallback, an unavailable model). */
  note?: string;
}

/** A surface group's score thresholds at which its benign rows stay within each target FPR. */
export interface FprCut {
  group: SurfaceGroup;
  benign: number;
  /** How many of those benign rows each set / family contributed, e.g. `validation/benign: 1376`. */
  from: Record<string, number>;
  /** One per target FPR, in the order asked. */
  thresholds: number[];
}
export type FprCuts = Partial<Record<SurfaceGroup, FprCut>>;

export interface Rates {
  recall: number | null;
  fpr: number | null;
}

export interface SliceStats {
  key: string;
  positives: number;
  negatives: number;
  roc_auc: number | null;
  /** Recall of the slice's positives at the whole-file cuts (RECALL_FPRS), each row at its group's cut. */
  recall_at_fpr: (number | null)[];
  /** The slice's benign rows above the same cuts. */
  fpr_at_fpr: (number | null)[];
  levels: Record<Level, Rates>;
  /** Set when the slice has one class only (a language that tracks the label, a benign-only family). */
  one_class: 'positives only' | 'negatives only' | null;
}

export interface GroupStats {
  group: SurfaceGroup;
  /** Benign validation rows of the group, and the team benign pool's. */
  benign: number;
  pool: number;
  fpr_at_levels: Record<Level, number | null>;
  fpr_at_levels_with_pool: Record<Level, number | null> | null;
  /** Thresholds for benign FPR GROUP_FPRS, and the group's validation recall at each. */
  thresholds_for_fpr: (number | null)[];
  recall_at_thresholds: (number | null)[];
  thresholds_for_fpr_with_pool: (number | null)[] | null;
  recall_at_thresholds_with_pool: (number | null)[] | null;
}

const share = (n: number, d: number): number | null => (d > 0 ? n / d : null);
const above = (scores: readonly number[], t: number): number => scores.filter((s) => s > t).length;

/** The score thresholds at which benign scores stay within each target FPR (`thresholdForFpr`); null without benign rows. */
export function thresholdsForFprs(benign: readonly number[], fprs: readonly number[]): (number | null)[] {
  return fprs.map((f) => (benign.length ? thresholdForFpr(benign, f) : null));
}

/** Per surface group, the cuts at `fprs` over the given benign rows; `describe` names what each row counts as. */
export function fprCuts(
  benignRows: readonly SuiteRow[],
  fprs: readonly number[],
  describe: (r: SuiteRow) => string,
): FprCuts {
  const out: FprCuts = {};
  for (const group of SURFACE_GROUPS) {
    const rows = benignRows.filter((r) => r.label === 0 && r.surface_group === group);
    if (rows.length === 0) continue;
    const from: Record<string, number> = {};
    for (const r of rows) from[describe(r)] = (from[describe(r)] ?? 0) + 1;
    const thresholds = thresholdsForFprs(
      rows.map((r) => r.score),
      fprs,
    ) as number[];
    out[group] = { group, benign: rows.length, from, thresholds };
  }
  return out;
}

/** Recall and FPR at one threshold. */
export function ratesAt(rows: readonly SuiteRow[], t: number): Rates {
  const pos = rows.filter((r) => r.label === 1).map((r) => r.score);
  const neg = rows.filter((r) => r.label === 0).map((r) => r.score);
  return { recall: share(above(pos, t), pos.length), fpr: share(above(neg, t), neg.length) };
}

/** Share of `rows` of one class above their own group's cut number `i`; null when no row has a cut. */
function shareAboveCut(rows: readonly SuiteRow[], cuts: FprCuts, i: number): number | null {
  let n = 0;
  let hit = 0;
  for (const r of rows) {
    const t = cuts[r.surface_group]?.thresholds[i];
    if (t === undefined) continue;
    n++;
    if (r.score > t) hit++;
  }
  return share(hit, n);
}

/** Counts, ROC AUC, recall and FPR at the whole-file cuts and at the shipped levels for one slice of rows. */
export function sliceStats(key: string, rows: readonly SuiteRow[], cuts: FprCuts, shipped: Thresholds): SliceStats {
  const pos = rows.filter((r) => r.label === 1);
  const neg = rows.filter((r) => r.label === 0);
  const nCuts = Math.max(0, ...Object.values(cuts).map((c) => c.thresholds.length));
  const levels = {} as Record<Level, Rates>;
  for (const l of LEVELS) levels[l] = ratesAt(rows, shipped[`${l}_above`]);
  return {
    key,
    positives: pos.length,
    negatives: neg.length,
    roc_auc: rocAuc(
      rows.map((r) => r.score),
      rows.map((r) => r.label),
    ),
    recall_at_fpr: Array.from({ length: nCuts }, (_, i) => shareAboveCut(pos, cuts, i)),
    fpr_at_fpr: Array.from({ length: nCuts }, (_, i) => shareAboveCut(neg, cuts, i)),
    levels,
    one_class: pos.length && !neg.length ? 'positives only' : neg.length && !pos.length ? 'negatives only' : null,
  };
}

/**
 * Slices by `keyOf` (rows whose key is undefined are left out), sorted by key; keys with fewer than
 * `minRows` rows are not sliced but listed in `small` with their counts.
 */
export function slicesBy(
  rows: readonly SuiteRow[],
  keyOf: (r: SuiteRow) => string | undefined,
  cuts: FprCuts,
  shipped: Thresholds,
  minRows = 1,
): { slices: SliceStats[]; small: { key: string; n: number }[] } {
  const groups = new Map<string, SuiteRow[]>();
  for (const r of rows) {
    const k = keyOf(r);
    if (k === undefined) continue;
    const g = groups.get(k);
    if (g) g.push(r);
    else groups.set(k, [r]);
  }
  const keys = [...groups.keys()].sort();
  return {
    slices: keys
      .filter((k) => groups.get(k)!.length >= minRows)
      .map((k) => sliceStats(k, groups.get(k)!, cuts, shipped)),
    small: keys.filter((k) => groups.get(k)!.length < minRows).map((k) => ({ key: k, n: groups.get(k)!.length })),
  };
}

/**
 * The attack slice with the lowest recall at the `fprIndex`-th whole-file cut (default FPR 0.05); ties go
 * to the lower recall at the warn level. Slices without positives are not candidates.
 */
export function worstSlice(slices: readonly SliceStats[], fprIndex = RECALL_FPRS.indexOf(0.05)): SliceStats | null {
  const key = (s: SliceStats): [number, number] => [s.recall_at_fpr[fprIndex] ?? 1, s.levels.warn.recall ?? 1];
  const candidates = slices.filter((s) => s.positives > 0);
  if (candidates.length === 0) return null;
  return candidates.reduce((w, s) => {
    const [a, b] = [key(s), key(w)];
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? s : w;
  });
}

/**
 * Per surface group: FPR of its benign validation rows at the shipped levels and the thresholds that give
 * benign FPR GROUP_FPRS (with the group's validation recall there), each also with the team benign pool
 * joining the benign rows when there is one.
 */
export function surfaceGroupStats(
  validation: readonly SuiteRow[],
  pool: readonly SuiteRow[],
  shipped: Thresholds,
): GroupStats[] {
  const out: GroupStats[] = [];
  for (const group of SURFACE_GROUPS) {
    const rows = validation.filter((r) => r.surface_group === group);
    const benign = rows.filter((r) => r.label === 0).map((r) => r.score);
    const extra = pool.filter((r) => r.surface_group === group && r.label === 0).map((r) => r.score);
    if (rows.length === 0 && extra.length === 0) continue;
    const pos = rows.filter((r) => r.label === 1).map((r) => r.score);
    const fprAt = (scores: number[]) =>
      Object.fromEntries(LEVELS.map((l) => [l, share(above(scores, shipped[`${l}_above`]), scores.length)])) as Record<
        Level,
        number | null
      >;
    const recallAt = (ts: (number | null)[]) => ts.map((t) => (t === null ? null : share(above(pos, t), pos.length)));
    const ts = thresholdsForFprs(benign, GROUP_FPRS);
    const withPool = extra.length ? thresholdsForFprs([...benign, ...extra], GROUP_FPRS) : null;
    out.push({
      group,
      benign: benign.length,
      pool: extra.length,
      fpr_at_levels: fprAt(benign),
      fpr_at_levels_with_pool: extra.length ? fprAt([...benign, ...extra]) : null,
      thresholds_for_fpr: ts,
      recall_at_thresholds: recallAt(ts),
      thresholds_for_fpr_with_pool: withPool,
      recall_at_thresholds_with_pool: withPool ? recallAt(withPool) : null,
    });
  }
  return out;
}

/** `owner/repo:path#subset` → `owner/repo#subset` (a source's files — train / dev / test splits — together). */
export function sourceKey(source: string | undefined): string | undefined {
  if (source === undefined) return undefined;
  const colon = source.indexOf(':');
  const hash = source.indexOf('#', colon);
  const repo = colon >= 0 ? source.slice(0, colon) : hash >= 0 ? source.slice(0, hash) : source;
  return hash >= 0 ? `${repo}#${source.slice(hash + 1)}` : repo;
}

/** The part of a source after `#` (a functional category, a subset), else the source. */
export function sourceFragment(source: string | undefined): string | undefined {
  if (source === undefined) return undefined;
  const hash = source.lastIndexOf('#');
  return hash >= 0 ? source.slice(hash + 1) : source;
}

/** Thresholds used by most rows (the scans' own `thresholds`), and how many rows used others. */
export function modalThresholds(per: readonly Thresholds[]): { thresholds: Thresholds | null; others: number } {
  const counts = new Map<string, { t: Thresholds; n: number }>();
  for (const t of per) {
    const k = `${t.warn_above}|${t.flag_above}|${t.block_above}`;
    const c = counts.get(k);
    if (c) c.n++;
    else counts.set(k, { t, n: 1 });
  }
  let best: { t: Thresholds; n: number } | null = null;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return { thresholds: best?.t ?? null, others: per.length - (best?.n ?? 0) };
}
