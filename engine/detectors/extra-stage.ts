/**
 * An operator's calibrated text classifier (`inference/extra-models.ts`, EXTRA_MODELS_DIR) as one more
 * stacked score of its detector (prompt_injection or toxicity). The detector runs as it would without it;
 * its published score s_b and the model's raw score s_m (the max over pieces of `maxChars` characters of
 * the normalised text; the worker windows each piece by tokens) are stacked as
 * sigmoid(bias + base · logit(s_b) + model · logit(s_m)) and mapped onto the published scale with the
 * calibration's `accurate` anchors of the surface group (`ExtraCalibration`, fitted by
 * `npm run models:calibrate`).
 *
 * - `fast`: the detector alone. `accurate`: the model's request is queued first, then the detector runs;
 *   both stacked. `auto`: the detector first, then the cascade — with the model's logit at the
 *   calibration's `upper_logit` the stack stays at or below the raw warn anchor, or with it at
 *   `lower_logit` it is above the raw block anchor: decided without it (the score is that bound);
 *   otherwise the model runs.
 * - Only on the model's surfaces; elsewhere the detector alone.
 * - When the model cannot answer (not loaded, worker crashed, inference failed) or within its own
 *   `timeoutMs`: the detector's result, with a note `extra_model=NAME;reason=…` (not cached). The scan's own
 *   deadline and cancellation are not fallbacks: they fail the scan as they would without the model.
 */
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import type { Thresholds } from '../../inference/manifest.ts';
import { readExtraCalibration, type ExtraCalibration, type ExtraModel } from '../../inference/extra-models.ts';
import type { Detector, DetectorInput, DetectorResult, FindingItem, Tier } from '../detector.ts';
import { SURFACE_GROUPS, surfaceGroup } from '../detector.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { CALIBRATED_LEVELS, calibrateScore } from './calibration.ts';
import { best, itemFor, modelCall, round, windowsOf, type Window } from './scoring.ts';

/** How one scan used an operator's model (`cf_extra_model_runs_total`'s `stage`). */
export type ExtraRunStage = 'early_low' | 'early_high' | 'full' | 'fallback';

/** Counts what the operator's models did (for metrics; the eval reads the same counters). */
export interface ExtraObserver {
  run?(model: string, tier: Tier, stage: ExtraRunStage): void;
  fallback?(model: string, reason: string): void;
}

/** The detector's own main item label, which the stack re-scores. */
export const MAIN_LABELS: Readonly<Record<string, string>> = {
  prompt_injection: 'prompt_injection',
  toxicity: 'toxic',
};

/** The model did not answer within its own `timeoutMs` (the scan's deadline is another matter). */
export class ExtraModelTimeoutError extends Error {
  constructor(
    readonly model: string,
    timeoutMs: number,
  ) {
    super(`model ${model} did not answer within ${timeoutMs} ms`);
    this.name = 'ExtraModelTimeoutError';
  }
}

/** `model:NAME@VERSION`: the item source of an operator's model. */
export const extraSource = (m: ExtraModel): string => `model:${m.name}@${m.version}`;

/** A model's calibration, checked for what the stage reads, or why it cannot be stacked. */
export type ExtraCalibrationStatus = { ok: true; value: ExtraCalibration } | { ok: false; reason: string };

/** The calibration `readExtraCalibration` finds for `model`, checked for every number the stage uses. */
export function extraCalibrationOf(model: ExtraModel): ExtraCalibrationStatus {
  const read = readExtraCalibration(model);
  if (!read.ok) return read;
  const c = read.value;
  const finite = (...xs: unknown[]) => xs.every((x) => typeof x === 'number' && Number.isFinite(x));
  if (c.detector !== model.detector)
    return { ok: false, reason: `calibration.json was fitted for detector ${c.detector}, not ${model.detector}` };
  if (!finite(c.stack.bias, c.stack.base, c.stack.model, c.cascade.lower_logit, c.cascade.upper_logit))
    return { ok: false, reason: 'calibration.json: stack and cascade must be finite numbers' };
  for (const g of SURFACE_GROUPS) {
    const a = c.calibration.forms.accurate?.[g];
    if (!a || !finite(a.warn_above, a.flag_above, a.block_above))
      return { ok: false, reason: `calibration.json: no accurate anchors for the ${g} surface group` };
  }
  return read;
}

/**
 * The model's best piece for `input`: the max over pieces of `maxChars` characters of the normalised text.
 * @throws the ModelClient's errors
 */
export async function extraTop(
  models: ModelClient,
  model: ExtraModel,
  input: DetectorInput,
): Promise<{ score: number; window: Window | null }> {
  const windows = windowsOf(input, model.maxChars);
  const scores = await models.classify(
    model.name,
    windows.map((w) => w.text),
    modelCall(input),
  );
  return best(windows, scores);
}

/** A scan's request to the operator's model, within its own timeout: its best piece, or why there is none. */
export async function askExtraModel(
  models: ModelClient,
  model: ExtraModel,
  input: DetectorInput,
): Promise<{ top: { score: number; window: Window | null } } | { fallback: string }> {
  // Its own timeout aborts the request (the dispatcher drops its waiting slices); the scan's signal and
  // deadline still apply and fail the scan as they would without this model.
  const own = new AbortController();
  const timer = setTimeout(() => own.abort(new ExtraModelTimeoutError(model.name, model.timeoutMs)), model.timeoutMs);
  const signal = input.signal ? AbortSignal.any([input.signal, own.signal]) : own.signal;
  try {
    return { top: await extraTop(models, model, { ...input, signal }) };
  } catch (err) {
    if (err instanceof ExtraModelTimeoutError) return { fallback: 'timeout' };
    if (err instanceof ModelUnavailableError) return { fallback: err.reason };
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export interface ExtraStageDeps {
  model: ExtraModel;
  calibration: ExtraCalibration;
  /** The pool loaded it on its threads; otherwise every scan it is due on falls back, with a note. */
  loaded: boolean;
  /** Runs it (null: no pool here, as `loaded` false). */
  models: ModelClient | null;
  observe?: ExtraObserver;
}

/**
 * `base` with the operator's model stacked onto its score (see the file's comment).
 * @throws Error when `base` is not a detector a text classifier can join
 */
export function withExtraStage(base: Detector, deps: ExtraStageDeps): Detector {
  const { model, calibration: cal } = deps;
  const label = MAIN_LABELS[base.name];
  if (!label || model.detector !== base.name) throw new Error(`model ${model.name} cannot join detector ${base.name}`);
  const models = deps.loaded ? deps.models : null;
  const source = extraSource(model);
  const surfaces = model.surfaces ? new Set(model.surfaces) : null;
  const { bias, base: wBase, model: wModel } = cal.stack;
  const how = `stacked: accurate; auto when undecided${surfaces ? `; on ${[...surfaces].join(', ')}` : ''}`;

  return {
    ...base,
    model: `${base.model}; ${model.name}@${model.version} (${how}${deps.loaded ? '' : '; not loaded: scans fall back'})`,
    thresholds: CALIBRATED_LEVELS,
    falseAlarmRates: cal.calibration.fpr,
    detect(input) {
      if (input.tier === 'fast' || (surfaces && !surfaces.has(input.surface))) return base.detect(input);
      return input.tier === 'accurate' ? accurate(input) : auto(input);
    },
  };

  async function accurate(input: DetectorInput): Promise<DetectorResult> {
    // the model's request queues before the detector's own, so its inference overlaps theirs
    const cancel = new AbortController();
    const own: DetectorInput = {
      ...input,
      signal: input.signal ? AbortSignal.any([input.signal, cancel.signal]) : cancel.signal,
    };
    const asked = models ? askExtraModel(models, model, own) : null;
    asked?.catch(() => undefined); // awaited below, or called off when the detector fails
    let result: DetectorResult;
    try {
      result = await base.detect(input);
    } catch (err) {
      cancel.abort();
      throw err;
    }
    if (!stackable(result)) {
      cancel.abort();
      return result;
    }
    const answer = asked ? await asked : { fallback: 'model_not_loaded' };
    return 'top' in answer ? stacked(input, result, answer.top) : fallback(input, result, answer.fallback);
  }

  async function auto(input: DetectorInput): Promise<DetectorResult> {
    const result = await base.detect(input);
    if (!stackable(result)) return result;
    const anchors = anchorsOf(input);
    const zBase = bias + wBase * clampedLogit(result.score);
    const withModelAt = (logit: number) => sigmoid(zBase + wModel * logit);
    // the stack's range over the model's plausible logits (the fit makes `model` positive: upper bounds it above)
    const ends = [withModelAt(cal.cascade.upper_logit), withModelAt(cal.cascade.lower_logit)];
    const high = Math.max(...ends);
    const low = Math.min(...ends);
    if (high <= anchors.warn_above) return early(input, result, high, 'early_low');
    if (low > anchors.block_above) return early(input, result, low, 'early_high');
    const answer = models ? await askExtraModel(models, model, input) : { fallback: 'model_not_loaded' };
    return 'top' in answer ? stacked(input, result, answer.top) : fallback(input, result, answer.fallback);
  }

  /** A detector result the stack can read: one that scored (toxicity without its model reports 0 with a note). */
  function stackable(result: DetectorResult): boolean {
    return !result.note?.startsWith('model_unavailable');
  }

  function anchorsOf(input: DetectorInput): Thresholds {
    return cal.calibration.forms.accurate![surfaceGroup(input.surface)]!;
  }

  function early(input: DetectorInput, result: DetectorResult, raw: number, stage: ExtraRunStage): DetectorResult {
    deps.observe?.run?.(model.name, input.tier, stage);
    return restack(input, result, calibrateScore(raw, anchorsOf(input)), null, `;cascade=without:${model.name}`);
  }

  function stacked(input: DetectorInput, result: DetectorResult, top: { score: number; window: Window | null }) {
    deps.observe?.run?.(model.name, input.tier, 'full');
    const z = bias + wBase * clampedLogit(result.score) + wModel * clampedLogit(top.score);
    return restack(input, result, calibrateScore(sigmoid(z), anchorsOf(input)), top, '');
  }

  function fallback(input: DetectorInput, result: DetectorResult, reason: string): DetectorResult {
    deps.observe?.run?.(model.name, input.tier, 'fallback');
    deps.observe?.fallback?.(model.name, reason);
    const note = `extra_model=${model.name};reason=${reason}`;
    return { ...result, note: result.note ? `${result.note};${note}` : note };
  }

  /**
   * The detector's result with its main item re-scored at `score` over the window that added most to the
   * stack (the detector's, or the model's best piece), its other items kept.
   */
  function restack(
    input: DetectorInput,
    result: DetectorResult,
    score: number,
    top: { score: number; window: Window | null } | null,
    baseSuffix: string,
  ): DetectorResult {
    const isMain = (i: FindingItem) => i.label === label && i.source.startsWith('model:');
    const others = result.items.filter((i) => !isMain(i));
    // the detector's window: its main item's, else its strongest other item's (the suffix or a rule raised s_b)
    const baseItem = result.items.find(isMain) ?? [...others].sort((a, b) => b.confidence - a.confidence)[0] ?? null;
    let main: FindingItem | null = null;
    if (score > CALIBRATED_LEVELS.warn_above) {
      const modelTerm = top ? wModel * clampedLogit(top.score) : -Infinity;
      const baseTerm = wBase * clampedLogit(result.score);
      if (top?.window && (modelTerm > baseTerm || !baseItem)) main = itemFor(input, top.window, label!, score, source);
      else if (baseItem)
        main = { ...baseItem, label: label!, confidence: round(score), source: baseItem.source + baseSuffix };
      else {
        // nothing to point at (the detector reported no item): the whole text
        const whole = { text: input.text.text, start: 0, end: input.text.text.length };
        main = itemFor(input, whole, label!, score, `${source}${baseSuffix}`);
      }
    }
    return {
      ...result,
      score,
      items: main ? [main, ...others] : others,
      thresholds: CALIBRATED_LEVELS,
    };
  }
}
