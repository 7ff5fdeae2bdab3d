/**
 * The math of a logistic stacker over model scores (pi-stack, toxicity-stack): columns are scores
 * [input][row]; a stacker is sigmoid(bias + Σ weight · clamped logit), the formula the engine serves
 * (`engine/detectors/stacking.ts`). A stack carries a reduced form without the deferred (costly) input, for
 * the surfaces where that input does not run, and its cascade is calibrated here.
 */
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import type { Thresholds } from '../../inference/manifest.ts';
import { trainHead } from './pi-semantic-head.ts';

export interface Linear {
  weights: number[];
  bias: number;
}

/** A stack over all inputs, and the reduced one (without the deferred input). */
export interface Stack extends Linear {
  reduced: Linear;
}

/** The columns without input `k`. */
export const without = <T>(cols: T[], k: number): T[] => cols.filter((_, j) => j !== k);

/** The stacked score of row `i`. */
export const linear = (st: Linear, cols: number[][], i: number): number =>
  sigmoid(st.bias + st.weights.reduce((z, w, k) => z + w * clampedLogit(cols[k]![i]!), 0));

/** Logits [row, input] row-major. */
function logits(cols: number[][]): Float32Array {
  const n = cols[0]!.length;
  const x = new Float32Array(n * cols.length);
  for (let i = 0; i < n; i++) cols.forEach((c, k) => (x[i * cols.length + k] = clampedLogit(c[i]!)));
  return x;
}

/** A head on standardised logits, rewritten as weights on raw logits. */
export function fitted(cols: number[][], labels: number[]): Linear {
  const k = cols.length;
  const head = trainHead(logits(cols), labels, k, { l2: 1e-3, epochs: 2000, learningRate: 0.05 });
  const weights = head.weights.map((w, j) => w / head.std[j]!);
  const bias = head.bias - head.weights.reduce((b, w, j) => b + (w * head.mean[j]!) / head.std[j]!, 0);
  return { weights, bias };
}

/** The mean of the standardised logits (standardised over the stacking rows, labels unused). */
export function zAveraged(cols: number[][]): Linear {
  const k = cols.length;
  const stats = cols.map((c) => {
    const lg = c.map(clampedLogit);
    const mu = lg.reduce((a, b) => a + b, 0) / lg.length;
    const sd = Math.sqrt(lg.reduce((a, b) => a + (b - mu) ** 2, 0) / lg.length) || 1;
    return { mu, sd };
  });
  return { weights: stats.map((s) => 1 / (k * s.sd)), bias: -stats.reduce((b, s) => b + s.mu / (k * s.sd), 0) };
}

/** Which input the cascade defers, and which rows score with the reduced stack (no cascade there). */
export interface CascadeSetup {
  defer: number;
  reduced(i: number): boolean;
}

/**
 * Counts on the rows `rows` admits: benign rows and those `early` ends without the deferred input, and
 * the stack's detections (above flag) and those `early` would lose.
 */
function earlyCounts(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  early: (i: number) => boolean,
  rows: (i: number) => boolean,
) {
  let benign = 0;
  let benignEarly = 0;
  let detected = 0;
  let lost = 0;
  labels.forEach((label, i) => {
    if (!rows(i)) return;
    if (label === 0) {
      benign++;
      if (early(i)) benignEarly++;
    } else if (linear(st, cols, i) > t.flag_above) {
      detected++;
      if (early(i)) lost++;
    }
  });
  return { benign, benignEarly, detected, lost };
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

/** What the auto tier's cascade does with `upper` for the deferred input: share of benign rows decided early, detections lost. */
export function cascadeOutcome(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  upper: number,
  c: CascadeSetup,
) {
  const k = c.defer;
  const early = (i: number) => {
    const z1 = st.weights.reduce((z, w, j) => (j === k ? z : z + w * clampedLogit(cols[j]![i]!)), st.bias);
    return sigmoid(z1 + st.weights[k]! * upper) <= t.warn_above;
  };
  // no deferred input on the reduced rows, so no cascade there
  const n = earlyCounts(st, cols, labels, t, early, (i) => !c.reduced(i));
  return {
    upper: r4(upper),
    benign_early: r4(n.benignEarly / Math.max(1, n.benign)),
    detected: n.detected,
    lost: n.lost,
  };
}

/**
 * The deferred input's `upper_logit`: the lowest of its positive-row logit quantiles (0.5 … 0.99) at which
 * the cascade loses at most 0.5 % of the stack's detections on the given rows (the highest otherwise).
 */
export function calibrateCascade(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  c: CascadeSetup,
) {
  const pos = labels
    .map((label, i) => (label === 1 ? clampedLogit(cols[c.defer]![i]!) : NaN))
    .filter((x) => !Number.isNaN(x))
    .sort((a, b) => a - b);
  const quantile = (q: number): number => pos[Math.min(pos.length - 1, Math.floor(q * pos.length))]!;
  const tries = [0.5, 0.75, 0.9, 0.95, 0.99].map((q) => ({
    q,
    ...cascadeOutcome(st, cols, labels, t, quantile(q), c),
  }));
  return tries.find((x) => x.lost <= 0.005 * x.detected) ?? tries.at(-1)!;
}

/**
 * Least squares of `target` logits on the logits of `cols` (`cols` minus an input): a reduced stack on the
 * same scale as the full one, so that the full stack's thresholds hold for it.
 */
export function mappedTo(target: readonly number[], cols: number[][]): Linear {
  if (cols.length !== 1) throw new Error('mappedTo maps one input');
  const x = cols[0]!.map(clampedLogit);
  const y = target.map(clampedLogit);
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
  }
  const w = sxx > 0 ? sxy / sxx : 0;
  return { weights: [w], bias: my - w * mx };
}

/**
 * Scores of a stack fitted on one half of the rows (by index parity) for the other half, and back: an
 * honest estimate of a stack fitted on these very rows.
 */
export function crossFitted(cols: number[][], labels: number[]): number[] {
  const half = (p: number) => labels.map((_, i) => i).filter((i) => i % 2 === p);
  const out = new Array<number>(labels.length);
  for (const p of [0, 1]) {
    const fit = half(p);
    const st = fitted(
      cols.map((c) => fit.map((i) => c[i]!)),
      fit.map((i) => labels[i]!),
    );
    for (const i of half(1 - p)) out[i] = linear(st, cols, i);
  }
  return out;
}

/** What a `below` cascade (gate τ on the other input, `keep`) does on some rows: benign share decided early, detections lost. */
export function gateOutcome(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  tau: number,
  keep: number,
  rows: (i: number) => boolean = () => true,
) {
  // τ ≤ gateMax: the reduced stack stays at or below warn where the gate ends a row early
  const n = earlyCounts(st, cols, labels, t, (i) => cols[keep]![i]! <= tau, rows);
  return {
    below: Number(tau.toPrecision(4)),
    benign_early: r4(n.benignEarly / Math.max(1, n.benign)),
    detected: n.detected,
    lost: n.lost,
  };
}

/** The highest gate whose reduced score (one input) stays at or below warn. */
export const gateMax = (st: Stack, t: Thresholds): number =>
  sigmoid((clampedLogit(t.warn_above) - st.reduced.bias) / st.reduced.weights[0]!);

/**
 * A `below` cascade's gate: the highest score of input `keep` on the rows (≤ `gateMax`) at which the stack
 * loses at most `bound` of its detections there (a row is lost when its `keep` score is at or below it).
 */
export function calibrateGate(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  keep: number,
  bound = 0.005,
  rows: (i: number) => boolean = () => true,
): number {
  const max = gateMax(st, t);
  const taus = [...new Set(cols[keep]!.filter((x, i) => x <= max && rows(i)))].sort((a, b) => a - b);
  let best = 0;
  for (let lo = 0, hi = taus.length - 1; lo <= hi;) {
    const mid = (lo + hi) >> 1;
    const o = gateOutcome(st, cols, labels, t, taus[mid]!, keep, rows);
    if (o.lost <= bound * o.detected) [best, lo] = [taus[mid]!, mid + 1];
    else hi = mid - 1;
  }
  return best;
}

/**
 * The gate fitted on one half of the rows (index parity) and judged on the other, both ways, summed: an
 * honest estimate of a gate fitted on these rows.
 */
export function crossFittedGate(
  st: Stack,
  cols: number[][],
  labels: readonly number[],
  t: Thresholds,
  keep: number,
  bound = 0.005,
) {
  let benign = 0;
  let early = 0;
  let detected = 0;
  let lost = 0;
  for (const p of [0, 1]) {
    const tau = calibrateGate(st, cols, labels, t, keep, bound, (i) => i % 2 === p);
    const o = gateOutcome(st, cols, labels, t, tau, keep, (i) => i % 2 !== p);
    const b = labels.filter((y, i) => y === 0 && i % 2 !== p).length;
    benign += b;
    early += o.benign_early * b;
    detected += o.detected;
    lost += o.lost;
  }
  return { benign_early: r4(early / Math.max(1, benign)), detected, lost };
}
