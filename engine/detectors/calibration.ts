/**
 * Score calibration: a classifier's raw score means nothing by itself (a stack's 0.84 and pi-fast's 0.94
 * were each "flag"), and the same raw score is rarer on a chat prompt than in a document. Each calibrated
 * detector maps its raw score, per tier form and surface group, onto one published scale: the raw
 * scores at which the benign pool's false-alarm rate falls to the manifest's stated rates (`calibration`,
 * fitted by `npm run train:thresholds`) land on {@link CALIBRATED_LEVELS}, linearly between anchors. So
 * `flag_above` 0.7 stands for the same benign false-alarm rate on every surface group and tier, and a
 * policy's own threshold means the same thing wherever it applies. The map is strictly increasing:
 * it reorders nothing inside a group (ROC AUC per group is unchanged).
 */
import type { Calibration, ModelEntry, Thresholds } from '../../inference/manifest.ts';
import { surfaceGroup, type Surface, type SurfaceGroup } from '../detector.ts';

/** The published levels of every calibrated detector: the scale the stated false-alarm rates land on. */
export const CALIBRATED_LEVELS: Readonly<Thresholds> = Object.freeze({
  warn_above: 0.5,
  flag_above: 0.7,
  block_above: 0.9,
});

/** Which of a detector's scoring forms produced a raw score: the lexical / single-model one, or the full stack. */
export type CalibrationForm = keyof Calibration['forms'];

const lerp = (x: number, x0: number, x1: number, y0: number, y1: number): number =>
  x1 > x0 ? y0 + ((y1 - y0) * (x - x0)) / (x1 - x0) : y1;

/**
 * `raw` on the published scale: [0, warn] → [0, levels.warn], [warn, flag] → [levels.warn, levels.flag],
 * [flag, block] → [levels.flag, levels.block], [block, 1] → [levels.block, 1].
 */
export function calibrateScore(raw: number, anchors: Thresholds, levels: Thresholds = CALIBRATED_LEVELS): number {
  const x = Math.min(1, Math.max(0, raw));
  if (x <= anchors.warn_above) return lerp(x, 0, anchors.warn_above, 0, levels.warn_above);
  if (x <= anchors.flag_above)
    return lerp(x, anchors.warn_above, anchors.flag_above, levels.warn_above, levels.flag_above);
  if (x <= anchors.block_above)
    return lerp(x, anchors.flag_above, anchors.block_above, levels.flag_above, levels.block_above);
  return lerp(x, anchors.block_above, 1, levels.block_above, 1);
}

/** A detector's score scale for one form and surface group: how raw scores map and where they warn. */
export interface Scale {
  /** the raw score on the published scale (identity when uncalibrated) */
  map(raw: number): number;
  /** the raw score at which this form warns here (a cascade decides early at or below it) */
  rawWarn: number;
  /** the thresholds results on this scale are judged by */
  thresholds: Thresholds;
}

/**
 * The scale of `entry`'s `form` on `surface`: calibrated when the manifest calibrates it (and `raw` is
 * not asked for), else the entry's own thresholds on the raw score.
 * @param raw raw scores on the entry's own thresholds (what `npm run train:thresholds` fits on)
 */
export function scaleOf(entry: ModelEntry, form: CalibrationForm, surface: Surface, raw = false): Scale {
  const own = entry.thresholds;
  if (!own) throw new Error(`model ${entry.id} has no thresholds in the manifest`);
  const anchors = raw ? undefined : anchorsOf(entry.calibration, form, surfaceGroup(surface));
  if (!anchors) return { map: (s) => s, rawWarn: own.warn_above, thresholds: own };
  return { map: (s) => calibrateScore(s, anchors), rawWarn: anchors.warn_above, thresholds: CALIBRATED_LEVELS };
}

/** The thresholds a detector publishes for `entry`: the calibrated levels, or its raw thresholds. */
export function publishedThresholds(entry: ModelEntry, raw = false): Thresholds {
  if (!entry.thresholds) throw new Error(`model ${entry.id} has no thresholds in the manifest`);
  return entry.calibration && !raw ? CALIBRATED_LEVELS : entry.thresholds;
}

/** The benign false-alarm rates `entry`'s published thresholds stand for, when it is calibrated. */
export function falseAlarmRates(entry: ModelEntry, raw = false): Thresholds | undefined {
  return entry.calibration && !raw ? entry.calibration.fpr : undefined;
}

function anchorsOf(c: Calibration | undefined, form: CalibrationForm, group: SurfaceGroup): Thresholds | undefined {
  return c?.forms[form]?.[group];
}
