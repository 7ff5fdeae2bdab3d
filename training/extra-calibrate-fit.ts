/**
 * The fit behind `npm run models:calibrate` (pure: scored rows in, an ExtraCalibration's numbers out).
 * An operator's model joins its detector as sigmoid(bias + base · logit(published score) + model ·
 * logit(model score)) (`inference/extra-models.ts`): the weights are a logistic fit (`stack-fit.ts`), the
 * anchors put the benign rows' false-alarm rate per surface group at TARGET_FPR with every origin weighing
 * the same (`threshold-fit.ts`, as `npm run train:thresholds` does), and the auto tier's cascade bounds are
 * chosen so that deciding without the model changes (almost) no decision of the full stack.
 */
import type { SurfaceGroup } from '../engine/detector.ts';
import { SURFACE_GROUPS } from '../engine/detector.ts';
import { calibrateScore, CALIBRATED_LEVELS } from '../engine/detectors/calibration.ts';
import { clampedLogit, sigmoid } from '../inference/logistic-head.ts';
import type { Thresholds } from '../inference/manifest.ts';
import { anchorsAtRates, originRates, type PoolRow } from './threshold-fit.ts';
import { fitted } from './trainers/stack-fit.ts';

/** One scored row of the fit: the detector's published score, the model's raw score, and where the row came from. */
export interface CalibrationRow {
  /** the detector's published score (accurate tier, the model not stacked) */
  base: number;
  /** the model's raw score */
  model: number;
  label: 0 | 1;
  group: SurfaceGroup;
  /** what the row's benign false-alarm rate is averaged over: `public:<source>` or `events` */
  origin: string;
  family: string;
  /** the source key: cross-fitting holds out whole sources */
  source: string;
  lang?: string;
}

export interface StackWeights {
  bias: number;
  base: number;
  model: number;
}

export type GroupAnchors = Record<SurfaceGroup, Thresholds>;

/** The raw stack score of a detector score and a model score. */
export const stackScore = (w: StackWeights, base: number, model: number): number =>
  sigmoid(w.bias + w.base * clampedLogit(base) + w.model * clampedLogit(model));

/** The stacked score on the published scale, through the row's group's anchors. */
export const publishedStack = (w: StackWeights, anchors: GroupAnchors, r: CalibrationRow): number =>
  calibrateScore(stackScore(w, r.base, r.model), anchors[r.group]);

/** 0 none, 1 warn, 2 flag, 3 block: a published score's level ("above" is strict, as decisions are). */
export const levelOf = (score: number, t: Thresholds = CALIBRATED_LEVELS): number =>
  score > t.block_above ? 3 : score > t.flag_above ? 2 : score > t.warn_above ? 1 : 0;

const r6 = (x: number): number => Math.round(x * 1e6) / 1e6;

/**
 * The logistic stack of [logit(base), logit(model)] on the rows' labels. A weight the fit makes
 * negative would turn its input upside down: that input is dropped (weight 0) and the other refitted alone.
 * @throws Error when the rows hold one class only
 */
export function fitStack(rows: readonly CalibrationRow[]): StackWeights & { dropped: 'base' | 'model' | null } {
  const labels = rows.map((r) => r.label);
  if (!labels.includes(0) || !labels.includes(1)) throw new Error('the stack needs attack and benign rows');
  const base = rows.map((r) => r.base);
  const model = rows.map((r) => r.model);
  const both = fitted([base, model], labels);
  const [wb, wm] = both.weights as [number, number];
  if (wb > 0 && wm > 0) return { bias: r6(both.bias), base: r6(wb), model: r6(wm), dropped: null };
  // keep the input with the stronger standing alone
  const dropModel = wm <= 0 && (wb > 0 || wm <= wb);
  const alone = fitted([dropModel ? base : model], labels);
  const w = Math.max(0, alone.weights[0]!);
  return dropModel
    ? { bias: r6(alone.bias), base: r6(w), model: 0, dropped: 'model' }
    : { bias: r6(alone.bias), base: 0, model: r6(w), dropped: 'base' };
}

/** Benign rows of one group as the threshold fit's pool: the stack's raw score, by origin. */
function pool(rows: readonly CalibrationRow[], w: StackWeights, group: SurfaceGroup): PoolRow[] {
  return rows
    .filter((r) => r.label === 0 && r.group === group)
    .map((r) => ({ score: stackScore(w, r.base, r.model), origin: r.origin, floor: 0 }));
}

export interface AnchorFit {
  anchors: GroupAnchors;
  /** per group: benign rows per origin (the calibration's `pool`) */
  pool: Record<SurfaceGroup, Record<string, number>>;
  /** per group: each origin's benign rate at the anchors (warn / flag / block) */
  rates: Record<SurfaceGroup, Record<string, Thresholds>>;
}

/**
 * Per surface group, the raw stack scores where the benign rows' false-alarm rate, each origin weighing
 * the same, falls to each of `targets`.
 * @throws Error when a group has no benign rows
 */
export function fitAnchors(rows: readonly CalibrationRow[], w: StackWeights, targets: Thresholds): AnchorFit {
  const out = { anchors: {}, pool: {}, rates: {} } as AnchorFit;
  for (const group of SURFACE_GROUPS) {
    const p = pool(rows, w, group);
    if (p.length === 0) throw new Error(`no benign rows for surface group ${group}`);
    const anchors = anchorsAtRates(p, targets, CALIBRATED_LEVELS);
    out.anchors[group] = anchors;
    const counts: Record<string, number> = {};
    for (const r of p) counts[r.origin] = (counts[r.origin] ?? 0) + 1;
    out.pool[group] = counts;
    out.rates[group] = originRates(p, anchors, CALIBRATED_LEVELS);
  }
  return out;
}

export interface Cascade {
  lower_logit: number;
  upper_logit: number;
}

/** What the auto tier does with `cascade` on the rows, against always running the model (the accurate tier). */
export interface CascadeOutcome {
  rows: number;
  /** share of rows the auto tier sends to the model */
  sent: number;
  /** rows decided without the model: low (at most warn), high (above block) */
  early_low: number;
  early_high: number;
  /** rows whose published level (none / warn / flag / block) differs from the full stack's */
  changed: number;
  /** rows the full stack alarms on (above warn) that the auto tier does not, and the full stack's alarms */
  lost_alarms: number;
  alarms: number;
  /** rows the auto tier blocks that the full stack does not, and the full stack's blocks */
  extra_blocks: number;
  blocks: number;
}

/**
 * The auto tier's answer for row `r` without the model, as `engine/detectors/extra-stage.ts` gives it: with
 * the model's logit at either bound, the stack's higher end at or below the raw warn anchor → `low`, its
 * lower end above the raw block anchor → `high`, each answering that end on the published scale; null: it
 * asks the model.
 */
export function earlyDecision(
  w: StackWeights,
  anchors: GroupAnchors,
  c: Cascade,
  r: Pick<CalibrationRow, 'base' | 'group'>,
): { stage: 'low' | 'high'; score: number } | null {
  const z = w.bias + w.base * clampedLogit(r.base);
  const a = anchors[r.group];
  const ends = [sigmoid(z + w.model * c.upper_logit), sigmoid(z + w.model * c.lower_logit)];
  const high = Math.max(...ends);
  const low = Math.min(...ends);
  if (high <= a.warn_above) return { stage: 'low', score: calibrateScore(high, a) };
  if (low > a.block_above) return { stage: 'high', score: calibrateScore(low, a) };
  return null;
}

/** The auto tier with `c` against the full stack (the accurate tier) on the rows. */
export function cascadeOutcome(
  rows: readonly CalibrationRow[],
  w: StackWeights,
  anchors: GroupAnchors,
  c: Cascade,
): CascadeOutcome {
  const o: CascadeOutcome = {
    rows: rows.length,
    sent: 0,
    early_low: 0,
    early_high: 0,
    changed: 0,
    lost_alarms: 0,
    alarms: 0,
    extra_blocks: 0,
    blocks: 0,
  };
  let sent = 0;
  for (const r of rows) {
    const full = levelOf(publishedStack(w, anchors, r));
    const early = earlyDecision(w, anchors, c, r);
    const auto = early === null ? full : levelOf(early.score);
    if (early === null) sent++;
    else if (early.stage === 'low') o.early_low++;
    else o.early_high++;
    if (auto !== full) o.changed++;
    if (full >= 1) o.alarms++;
    if (full >= 1 && auto === 0) o.lost_alarms++;
    if (full === 3) o.blocks++;
    if (auto === 3 && full < 3) o.extra_blocks++;
  }
  o.sent = rows.length ? Math.round((sent / rows.length) * 1e4) / 1e4 : 0;
  return o;
}

/** The q-quantile (0..1, nearest rank) of sorted values. */
const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.floor(q * sorted.length)))]!;

/** Share of sorted values at or below x. */
const rankOf = (sorted: readonly number[], x: number): number => sorted.filter((v) => v <= x).length / sorted.length;

const logitsOf = (rows: readonly CalibrationRow[], label?: 0 | 1): number[] =>
  rows
    .filter((r) => label === undefined || r.label === label)
    .map((r) => clampedLogit(r.model))
    .sort((a, b) => a - b);

/**
 * The first of sorted `xs` (searching from the end when `fromTop`) at which `ok` holds, `ok` holding for
 * every value past it: a binary search.
 */
function firstOk(xs: readonly number[], ok: (x: number) => boolean, fromTop: boolean): number | undefined {
  const at = (i: number) => xs[fromTop ? xs.length - 1 - i : i]!;
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ok(at(mid))) hi = mid;
    else lo = mid + 1;
  }
  return lo < xs.length ? at(lo) : undefined;
}

export interface CascadeFit extends Cascade {
  /** the share of the attack rows' model logits at or below `upper_logit`, of the benign rows' below `lower_logit` */
  upper_attack_rank: number;
  lower_benign_rank: number;
  outcome: CascadeOutcome;
  /** the bounds of the other reading (upper: benign 99th percentile, lower: attack 1st) and what they would do */
  benign_attack_rule: Cascade & { outcome: CascadeOutcome };
}

/**
 * The cascade's bounds, as cheap as the rows allow: a row is decided low without the model only where
 * the model could not lift it above warn, so `upper_logit` is the lowest model logit of the rows at which
 * the auto tier loses at most `bound` of the full stack's alarms; a row is decided high only where the
 * model could not pull it below block, so `lower_logit` is the highest at which the auto tier adds at most
 * `bound` of the full stack's blocks (rounded down: none where it blocks fewer than 1 / bound rows).
 * Measured beside them: upper at the benign rows' 99th percentile and lower at the attacks' 1st, bounds
 * that no loss holds to (a good model's attack logits start high, so that lower decides high the
 * detector's false alarms the model would clear).
 * @throws Error when the rows hold one class only
 */
export function fitCascade(
  rows: readonly CalibrationRow[],
  w: StackWeights,
  anchors: GroupAnchors,
  bound = 0.005,
): CascadeFit {
  const attacks = logitsOf(rows, 1);
  const benign = logitsOf(rows, 0);
  if (!attacks.length || !benign.length) throw new Error('the cascade needs attack and benign rows');
  // finite: a model weight of 0 times an infinite logit would be NaN
  const NEVER = 1e9;
  const candidates = [...new Set(logitsOf(rows))];
  // the higher upper, the fewer rows decided low: the lowest that keeps the losses in bound
  const upper =
    firstOk(
      candidates,
      (v) => {
        const o = cascadeOutcome(rows, w, anchors, { upper_logit: v, lower_logit: -NEVER });
        return o.lost_alarms <= Math.floor(bound * o.alarms);
      },
      false,
    ) ?? candidates.at(-1)!;
  // the lower lower, the fewer rows decided high: the highest that keeps the added blocks in bound
  const lower =
    firstOk(
      candidates,
      (v) => {
        const o = cascadeOutcome(rows, w, anchors, { upper_logit: NEVER, lower_logit: v });
        return o.extra_blocks <= Math.floor(bound * o.blocks);
      },
      true,
    ) ?? candidates[0]!;
  const chosen = { upper_logit: r6(upper), lower_logit: r6(Math.min(lower, upper)) };
  const rule = { upper_logit: r6(quantile(benign, 0.99)), lower_logit: r6(quantile(attacks, 0.01)) };
  return {
    ...chosen,
    upper_attack_rank: r6(rankOf(attacks, chosen.upper_logit)),
    lower_benign_rank: r6(benign.filter((v) => v < chosen.lower_logit).length / benign.length),
    outcome: cascadeOutcome(rows, w, anchors, chosen),
    benign_attack_rule: { ...rule, outcome: cascadeOutcome(rows, w, anchors, rule) },
  };
}

/**
 * Sources into `k` folds of about equal rows (largest source first, into the fold with fewest rows so
 * far; ties by name): cross-fitting holds out whole sources, so a score is judged on a source the fit
 * never saw.
 */
export function sourceFolds(rows: readonly { source: string }[], k: number): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const r of rows) sizes.set(r.source, (sizes.get(r.source) ?? 0) + 1);
  const order = [...sizes].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const load = new Array<number>(Math.max(1, k)).fill(0);
  const fold = new Map<string, number>();
  for (const [source, n] of order) {
    const f = load.indexOf(Math.min(...load));
    fold.set(source, f);
    load[f] = load[f]! + n;
  }
  return fold;
}

/**
 * Each row's stacked published score from a stack and anchors fitted on the other folds' sources: an
 * honest estimate of what the fit does on data it did not see. A fold whose training rows lack a class
 * takes the full fit's weights; a group without benign training rows takes the full fit's anchors.
 */
export function crossFitted(
  rows: readonly CalibrationRow[],
  k: number,
  targets: Thresholds,
  full: { weights: StackWeights; anchors: GroupAnchors },
): number[] {
  const fold = sourceFolds(rows, k);
  const out = new Array<number>(rows.length).fill(0);
  for (let f = 0; f < k; f++) {
    const train = rows.filter((r) => fold.get(r.source) !== f);
    const held = rows.map((r, i) => [r, i] as const).filter(([r]) => fold.get(r.source) === f);
    if (held.length === 0) continue;
    let w: StackWeights = full.weights;
    try {
      w = fitStack(train);
    } catch {
      // one class only among the other folds: the full fit's weights
    }
    const anchors = { ...full.anchors };
    for (const group of SURFACE_GROUPS) {
      const p = pool(train, w, group);
      anchors[group] = p.length ? anchorsAtRates(p, targets, CALIBRATED_LEVELS) : full.anchors[group];
    }
    for (const [r, i] of held) out[i] = publishedStack(w, anchors, r);
  }
  return out;
}
