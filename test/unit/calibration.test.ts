import { describe, expect, it } from 'vitest';
import { CALIBRATED_LEVELS, calibrateScore, publishedThresholds, scaleOf } from '../../engine/detectors/calibration.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import { anchorsAtRates, macroRate, originRates, type PoolRow } from '../../training/threshold-fit.ts';

const anchors = { warn_above: 0.2, flag_above: 0.4, block_above: 0.8 };
const entry = (calibrated: boolean): ModelEntry => ({
  id: 'm',
  version: '1',
  task: 'text-classification',
  runtime: 'onnx',
  file: 'm/x',
  sha256: '',
  featurizer: {},
  labels: ['benign', 'bad'],
  max_chars: 100,
  thresholds: { warn_above: 0.6, flag_above: 0.8, block_above: 0.95 },
  ...(calibrated
    ? {
        calibration: {
          fpr: { warn_above: 0.05, flag_above: 0.02, block_above: 0.005 },
          forms: { accurate: { prompt: anchors, document: { warn_above: 0.5, flag_above: 0.6, block_above: 0.7 } } },
          pool: {},
        },
      }
    : {}),
});

describe('calibration: raw scores onto the published levels', () => {
  it('lands each anchor on its level, linearly between, and keeps 0 and 1', () => {
    expect(calibrateScore(0, anchors)).toBe(0);
    expect(calibrateScore(0.1, anchors)).toBeCloseTo(0.25, 12);
    expect(calibrateScore(0.2, anchors)).toBeCloseTo(CALIBRATED_LEVELS.warn_above, 12);
    expect(calibrateScore(0.3, anchors)).toBeCloseTo(0.6, 12);
    expect(calibrateScore(0.4, anchors)).toBeCloseTo(CALIBRATED_LEVELS.flag_above, 12);
    expect(calibrateScore(0.8, anchors)).toBeCloseTo(CALIBRATED_LEVELS.block_above, 12);
    expect(calibrateScore(1, anchors)).toBe(1);
    expect(calibrateScore(1.5, anchors)).toBe(1);
  });

  it('is strictly increasing: it reorders nothing', () => {
    let prev = -1;
    for (let x = 0; x <= 1; x += 0.001) {
      const y = calibrateScore(x, anchors);
      expect(y).toBeGreaterThan(prev);
      prev = y;
    }
  });

  it('a calibrated entry publishes the levels and maps per surface group; raw or uncalibrated keeps its own', () => {
    expect(publishedThresholds(entry(true))).toBe(CALIBRATED_LEVELS);
    expect(publishedThresholds(entry(true), true)).toEqual(entry(true).thresholds);
    expect(publishedThresholds(entry(false))).toEqual(entry(false).thresholds);
    const prompt = scaleOf(entry(true), 'accurate', 'user_message');
    const doc = scaleOf(entry(true), 'accurate', 'tool_result');
    expect(prompt.rawWarn).toBe(0.2);
    expect(doc.rawWarn).toBe(0.5);
    // the same raw score is an alarm on a prompt and not in a document
    expect(prompt.map(0.45)).toBeGreaterThan(CALIBRATED_LEVELS.flag_above);
    expect(doc.map(0.45)).toBeLessThan(CALIBRATED_LEVELS.warn_above);
    // a form the manifest does not calibrate keeps the raw score on the entry's thresholds
    const fast = scaleOf(entry(true), 'fast', 'user_message');
    expect(fast.map(0.45)).toBe(0.45);
    expect(fast.thresholds).toEqual(entry(true).thresholds);
  });
});

describe('threshold fit: anchors at a stated benign false-alarm rate', () => {
  // origin a: 100 rows 0.00..0.99; origin b: 10 rows, all 0.5
  const rows: PoolRow[] = [
    ...Array.from({ length: 100 }, (_, i) => ({ score: i / 100, origin: 'a', floor: 0 })),
    ...Array.from({ length: 10 }, () => ({ score: 0.5, origin: 'b', floor: 0 })),
  ];

  it('the rate is the mean of the origins’ rates', () => {
    // above 0.49: a 50 %, b 100 % → 75 %; above 0.5: a 49 %, b 0 % → 24.5 %
    expect(macroRate(rows, 0.49, 0.5)).toBeCloseTo(0.75, 12);
    expect(macroRate(rows, 0.5, 0.5)).toBeCloseTo(0.245, 12);
  });

  it('picks the smallest anchor that meets each target, increasing', () => {
    const a = anchorsAtRates(rows, { warn_above: 0.3, flag_above: 0.1, block_above: 0.02 }, CALIBRATED_LEVELS);
    // warn: 0.5 gives 24.5 % (0.49 gives 75 %); flag: a's rate ≤ 20 % → 0.79 (20 rows above); block: ≤ 4 % → 0.95
    expect(a).toEqual({ warn_above: 0.5, flag_above: 0.79, block_above: 0.95 });
    const r = originRates(rows, a, CALIBRATED_LEVELS);
    expect(r.b).toEqual({ warn_above: 0, flag_above: 0, block_above: 0 });
    expect(r.a!.flag_above).toBeCloseTo(0.2, 12);
  });

  it('counts rows another alarm already raises, whatever the anchor', () => {
    const floored = rows.map((r, i) => (i < 10 ? { ...r, floor: 0.95 } : r)); // 10 of a's rows blocked by another alarm
    const a = anchorsAtRates(floored, { warn_above: 0.3, flag_above: 0.1, block_above: 0.02 }, CALIBRATED_LEVELS);
    // flag: a's rate = (rows above the anchor + 10 floored) / 100 ≤ 20 % → 10 above → anchor 0.89
    expect(a.flag_above).toBe(0.89);
    // block: the floor alone gives a 10 % > 4 %: the anchor is the highest score (then strictly above flag)
    expect(a.block_above).toBe(0.99);
  });
});
