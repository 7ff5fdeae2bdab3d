/** Evaluation metrics and threshold selection for binary classifiers ("positive" = score > t). */
import type { Thresholds } from '../inference/manifest.ts';

export interface BinaryMetrics {
  n: number;
  positives: number;
  negatives: number;
  threshold: number;
  accuracy: number;
  precision: number;
  recall: number;
  f1: number;
  fpr: number;
  roc_auc: number | null;
}

const r4 = (x: number): number => Math.round(x * 1e4) / 1e4;

export function binaryMetrics(scores: ArrayLike<number>, labels: ArrayLike<number>, threshold: number): BinaryMetrics {
  let tp = 0;
  let fp = 0;
  let tn = 0;
  let fn = 0;
  for (let i = 0; i < scores.length; i++) {
    const pred = (scores[i] as number) > threshold;
    const y = (labels[i] as number) === 1;
    if (pred && y) tp++;
    else if (pred) fp++;
    else if (y) fn++;
    else tn++;
  }
  const precision = tp + fp > 0 ? tp / (tp + fp) : 0;
  const recall = tp + fn > 0 ? tp / (tp + fn) : 0;
  const auc = rocAuc(scores, labels);
  return {
    n: scores.length,
    positives: tp + fn,
    negatives: tn + fp,
    threshold: r4(threshold),
    accuracy: r4((tp + tn) / Math.max(1, scores.length)),
    precision: r4(precision),
    recall: r4(recall),
    f1: r4(precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0),
    fpr: r4(tn + fp > 0 ? fp / (tn + fp) : 0),
    roc_auc: auc === null ? null : r4(auc),
  };
}

/** Area under the ROC curve (ties counted half); null when one class is absent. */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number | null {
  const idx = Array.from({ length: scores.length }, (_, i) => i).sort(
    (a, b) => (scores[a] as number) - (scores[b] as number),
  );
  let pos = 0;
  let neg = 0;
  for (let i = 0; i < labels.length; i++) {
    if ((labels[i] as number) === 1) pos++;
    else neg++;
  }
  if (pos === 0 || neg === 0) return null;
  let rankSum = 0;
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1] as number] === scores[idx[i] as number]) j++;
    const avgRank = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if ((labels[idx[k] as number] as number) === 1) rankSum += avgRank;
    i = j + 1;
  }
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/**
 * Lowest threshold t (among the scores, as "score > t") at which precision >= target; 1 when no
 * threshold reaches it.
 */
export function thresholdForPrecision(scores: ArrayLike<number>, labels: ArrayLike<number>, target: number): number {
  let best = 1;
  sweepCuts(scores, labels, (tp, fp, _s, next) => {
    if (tp / (tp + fp) >= target) best = next === -Infinity ? 0 : next;
  });
  return best;
}

/**
 * Walks the scores from the highest down and calls `at` at each cut between distinct scores: `tp` and `fp`
 * count the rows scoring `s` or more, `next` is the next lower score (-Infinity after the lowest).
 */
function sweepCuts(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  at: (tp: number, fp: number, s: number, next: number) => void,
): void {
  const idx = Array.from({ length: scores.length }, (_, i) => i).sort(
    (a, b) => (scores[b] as number) - (scores[a] as number),
  );
  let tp = 0;
  let fp = 0;
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k] as number;
    if ((labels[i] as number) === 1) tp++;
    else fp++;
    const s = scores[i] as number;
    const next = k + 1 < idx.length ? (scores[idx[k + 1] as number] as number) : -Infinity;
    if (next !== s) at(tp, fp, s, next); // only cut between distinct scores
  }
}

/** Smallest threshold t with (#negatives scoring > t) / #negatives <= maxFpr. */
export function thresholdForFpr(negScores: ArrayLike<number>, maxFpr: number): number {
  const s = Array.from(negScores).sort((a, b) => b - a);
  const allowed = Math.floor(maxFpr * s.length);
  if (s.length === 0) return 0;
  return s[Math.min(allowed, s.length - 1)] as number;
}

export interface ThresholdPolicy {
  warn: { precision: number; max_fpr: number };
  flag: { precision: number; max_fpr: number };
  block: { precision: number; max_fpr: number };
}

export const DEFAULT_THRESHOLD_POLICY: ThresholdPolicy = {
  warn: { precision: 0.8, max_fpr: 0.05 },
  flag: { precision: 0.9, max_fpr: 0.02 },
  block: { precision: 0.97, max_fpr: 0.005 },
};

/**
 * Per level: the larger of the precision-target threshold (on all validation rows) and the
 * FPR-target threshold (on the validation negatives, hard negatives included), then forced to be
 * increasing and within [0.3, 0.995].
 */
export function chooseThresholds(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  policy: ThresholdPolicy = DEFAULT_THRESHOLD_POLICY,
): Thresholds {
  const neg: number[] = [];
  for (let i = 0; i < scores.length; i++) if ((labels[i] as number) === 0) neg.push(scores[i] as number);
  const level = (l: { precision: number; max_fpr: number }): number =>
    Math.max(thresholdForPrecision(scores, labels, l.precision), thresholdForFpr(neg, l.max_fpr));
  const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
  const warn = clamp(level(policy.warn), 0.3, 0.95);
  const flag = clamp(Math.max(level(policy.flag), warn + 0.02), 0.35, 0.97);
  const block = clamp(Math.max(level(policy.block), flag + 0.02), 0.4, 0.995);
  return { warn_above: r4(warn), flag_above: r4(flag), block_above: r4(block) };
}

/**
 * Temperature τ (grid 0.5–8) minimising the log loss of sigmoid(logit(score) / τ) against the labels
 * (scores clipped to [1e-6, 1 - 1e-6]): temperature scaling, a monotone recalibration.
 */
export function fitTemperature(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const logits = Array.from(scores, (s) => {
    const p = Math.min(1 - 1e-6, Math.max(1e-6, s));
    return Math.log(p / (1 - p));
  });
  let best = 1;
  let bestLoss = Infinity;
  for (let t = 0.5; t <= 8.0001; t += 0.05) {
    let loss = 0;
    for (let i = 0; i < logits.length; i++) {
      const z = (logits[i] as number) / t;
      // log(1 + e^-z) for y = 1, log(1 + e^z) for y = 0, computed stably
      const m = (labels[i] as number) === 1 ? -z : z;
      loss += m > 0 ? m + Math.log1p(Math.exp(-m)) : Math.log1p(Math.exp(m));
    }
    if (loss < bestLoss) {
      bestLoss = loss;
      best = t;
    }
  }
  return Math.round(best * 100) / 100;
}

/** The threshold t (between distinct scores, as "score > t") maximising F-beta; 0.5 when there are no positives. */
export function thresholdForFBeta(scores: ArrayLike<number>, labels: ArrayLike<number>, beta: number): number {
  let pos = 0;
  for (let i = 0; i < labels.length; i++) pos += (labels[i] as number) === 1 ? 1 : 0;
  if (pos === 0) return 0.5;
  const b2 = beta * beta;
  let best = { f: -1, t: 0.5 };
  sweepCuts(scores, labels, (tp, fp, s, next) => {
    const f = ((1 + b2) * tp) / ((1 + b2) * tp + b2 * (pos - tp) + fp);
    // cut halfway to the next lower score, so a score equal to neither side decides the same way
    if (f > best.f) best = { f, t: next === -Infinity ? 0 : (s + next) / 2 };
  });
  return best.t;
}

/**
 * Thresholds for a detector judged by F1 at its flag level (toxicity): flag at the F1-best threshold of
 * the validation rows, warn at the F2-best one (recall-leaning) kept within [flag − 0.05, flag − 0.02] (a lower warn
 * level warned on neutral mentions of identity groups), block where
 * `block` of the policy puts it (precision and FPR targets), all increasing within [0.05, 0.995].
 */
export function chooseF1Thresholds(
  scores: ArrayLike<number>,
  labels: ArrayLike<number>,
  block: { precision: number; max_fpr: number },
): Thresholds {
  const neg: number[] = [];
  for (let i = 0; i < scores.length; i++) if ((labels[i] as number) === 0) neg.push(scores[i] as number);
  const clamp = (x: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, x));
  const flag = clamp(thresholdForFBeta(scores, labels, 1), 0.07, 0.97);
  const warn = clamp(thresholdForFBeta(scores, labels, 2), Math.max(0.05, flag - 0.05), flag - 0.02);
  const b = Math.max(thresholdForPrecision(scores, labels, block.precision), thresholdForFpr(neg, block.max_fpr));
  return { warn_above: r4(warn), flag_above: r4(flag), block_above: r4(clamp(Math.max(b, flag + 0.02), 0.09, 0.995)) };
}
