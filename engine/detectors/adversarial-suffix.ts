/**
 * The adversarial-suffix family of the prompt-injection detector: optimisation-based attacks (GCG-style
 * token soup appended to a request) scored by pi-suffix, a character language model of benign text
 * (`inference/char-lm.ts`). Its thresholds are in bits per character and were calibrated on benign user
 * prompts only, so it runs on prompt-like surfaces only: documents, tool results and MCP resources are
 * full of benign text that surprises it (tables, code, identifiers) and need their own calibration.
 */
import type { CharLm } from '../../inference/char-lm.ts';
import type { Thresholds } from '../../inference/manifest.ts';
import { runSteps } from '../../lib/steps.ts';
import type { DetectorInput, DetectorResult, FindingItem, Surface } from '../detector.ts';
import { ModelDeadlineError, ModelOverloadedError, ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { modelCall, round } from './scoring.ts';

export const SUFFIX_LABEL = 'adversarial_suffix';
export const SUFFIX_SURFACES: ReadonlySet<Surface> = new Set<Surface>(['user_message', 'agent_message']);

export interface SuffixScore {
  /** Max window mean surprise, bits per ASCII character. */
  bits: number;
  start: number;
  end: number;
}

/**
 * The suffix score of the original text (offsets into it), or null where the scorer does not run (surface,
 * no model). With `pool` (a client whose threads loaded the model) it is scored there, in the scan's pool
 * task; otherwise here, paced (a promise) when the input says so. The same code scores it either way.
 * Here too when the pool cannot or will not in time (not loaded, crashed, full, too late): the pool never
 * fails a scan that would not otherwise have used it (a fast-tier prompt-injection scan). @throws the
 * scan's cancellation (its client went away)
 */
export function suffixScore(
  lm: CharLm | null,
  input: DetectorInput,
  pool?: ModelClient | null,
): SuffixScore | null | Promise<SuffixScore> {
  if (!lm || !SUFFIX_SURFACES.has(input.surface)) return null;
  // The original text, as the model was trained: homoglyph folding turns Cyrillic and Greek prose into a
  // mix of Latin and non-Latin letters that reads like token soup (measured on a Russian prompt).
  const text = input.text.original;
  const here = () => runSteps(lm.scoreSteps(text), input.pace);
  if (!pool?.suffix) return here();
  return pool.suffix(lm.entry.id, [text], modelCall(input)).then(
    (windows) => windows[0]!,
    (err: unknown) => {
      if (
        err instanceof ModelUnavailableError ||
        err instanceof ModelOverloadedError ||
        err instanceof ModelDeadlineError
      )
        return here();
      throw err;
    },
  );
}

/**
 * Maps bits onto the detector's thresholds: the model's warn / flag / block levels (bits) land on the
 * detector's warn / flag / block levels, linearly between them; below the model's warn level it is 0
 * (it never lifts a benign score), above its block level it rises to 1 over 2 more bits.
 */
export function calibrate(bits: number, model: Thresholds, detector: Thresholds): number {
  if (bits < model.warn_above) return 0;
  const lerp = (x: number, x0: number, x1: number, y0: number, y1: number): number =>
    y0 + ((y1 - y0) * (x - x0)) / (x1 - x0 || 1);
  if (bits < model.flag_above)
    return lerp(bits, model.warn_above, model.flag_above, detector.warn_above, detector.flag_above);
  if (bits < model.block_above)
    return lerp(bits, model.flag_above, model.block_above, detector.flag_above, detector.block_above);
  return Math.min(1, lerp(bits, model.block_above, model.block_above + 2, detector.block_above, 1));
}

/**
 * The result with the suffix family folded in: score = max(model score, calibrated suffix score), and an
 * `adversarial_suffix` item over the most surprising window when the calibrated score passes warn.
 */
export function withSuffix(
  input: DetectorInput,
  result: DetectorResult,
  lm: CharLm | null,
  suffix: SuffixScore | null,
  detectorThresholds: Thresholds,
): DetectorResult {
  if (!lm || !suffix || !lm.entry.thresholds) return result;
  const thresholds = result.thresholds ?? detectorThresholds;
  const score = calibrate(suffix.bits, lm.entry.thresholds, thresholds);
  if (score <= thresholds.warn_above) return result;
  const item: FindingItem = {
    text: input.text.original.slice(suffix.start, suffix.end),
    label: SUFFIX_LABEL,
    confidence: round(score),
    source: `model:${lm.entry.id}@${lm.entry.version}`,
    span: [suffix.start, suffix.end],
  };
  return { ...result, score: Math.max(result.score, score), items: [...result.items, item] };
}
