import { describe, expect, it } from 'vitest';
import { chooseF1Thresholds, thresholdForFBeta, thresholdForPrecision } from '../../training/metrics.ts';

// scores high → low with labels: 0.9 (1), 0.8 (1), 0.7 (0), 0.6 (1), 0.4 (0), 0.2 (0)
const scores = [0.9, 0.8, 0.7, 0.6, 0.4, 0.2];
const labels = [1, 1, 0, 1, 0, 0];

describe('threshold choice', () => {
  it('precision: the lowest cut reaching the target, as "score > t"', () => {
    expect(thresholdForPrecision(scores, labels, 1)).toBe(0.7); // above 0.7: two of two
    expect(thresholdForPrecision(scores, labels, 0.75)).toBe(0.4); // above 0.4: three of four
    expect(thresholdForPrecision(scores, labels, 1.01)).toBe(1);
  });

  it('F-beta: the best cut, halfway between the scores it separates', () => {
    // F1 at "> 0.5" (3 TP, 1 FP, 0 FN) = 6/7 beats "> 0.75" (2 TP, 0 FP, 1 FN) = 4/5
    expect(thresholdForFBeta(scores, labels, 1)).toBeCloseTo(0.5, 12);
    // F2 weighs recall: the same cut keeps every positive
    expect(thresholdForFBeta(scores, labels, 2)).toBeCloseTo(0.5, 12);
    expect(thresholdForFBeta(scores, [0, 0, 0, 0, 0, 0], 1)).toBe(0.5);
  });

  it('F1 thresholds: flag at the F1-best cut, warn within 0.05 below it, block by precision and FPR, increasing', () => {
    const t = chooseF1Thresholds(scores, labels, { precision: 0.95, max_fpr: 0.01 });
    expect(t.flag_above).toBe(0.5);
    expect(t.warn_above).toBe(0.48); // F2-best is 0.5 too: warn at most flag − 0.02
    expect(t.block_above).toBe(0.7); // above 0.7 precision 1 and no negative
    expect(t.warn_above < t.flag_above && t.flag_above < t.block_above).toBe(true);
  });
});
