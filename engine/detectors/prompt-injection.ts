/**
 * Prompt injection and jailbreaks. The tier picks the model: `fast` is the in-process hashed
 * n-gram linear model; `accurate` and `auto` (equal to accurate today) use the pool's classifier.
 * When the accurate model cannot answer (not loaded, worker crashed), the scan retries once with
 * fast and says so in the item's `source`. On prompt-like surfaces every tier also runs the in-process
 * adversarial-suffix scorer (pi-suffix, `adversarial-suffix.ts`): the score is the max of the two and an
 * `adversarial_suffix` item says when that family fired.
 */
import type { CharLm } from '../../inference/char-lm.ts';
import type { LinearModel } from '../../inference/linear-model.ts';
import type { ModelEntry, Thresholds } from '../../inference/manifest.ts';
import type { Detector, DetectorInput, DetectorResult } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { decodedViews, type TextView } from '../views.ts';
import { suffixScore, withSuffix } from './adversarial-suffix.ts';
import { best, itemFor, windowsOf, type Window } from './scoring.ts';

const LABEL = 'prompt_injection';

export interface PromptInjectionDeps {
  fast: LinearModel;
  /** The accurate model's manifest entry, or null when this deployment does not serve it. */
  accurate: ModelEntry | null;
  /** Runs the accurate model (null: no model server; every scan takes the fast tier). */
  models: ModelClient | null;
  /** The adversarial-suffix scorer (pi-suffix), or null when this deployment does not serve it. */
  suffix?: CharLm | null;
  /** Called when a scan fell back from accurate to fast (for metrics). */
  onFallback?(reason: string): void;
}

export function createPromptInjectionDetector(deps: PromptInjectionDeps): Detector {
  const fastEntry = deps.fast.entry;
  const fastSource = `model:${fastEntry.id}@${fastEntry.version}`;
  const fastThresholds = requireThresholds(fastEntry);
  const accurate = deps.accurate;
  const defaultThresholds = accurate ? requireThresholds(accurate) : fastThresholds;

  // The accurate model may be an ensemble with the fast one (manifest `combine`); it is then scored here too.
  const combineWithFast = accurate?.combine?.with === fastEntry.id && accurate.combine.method === 'mean';
  if (accurate?.combine && !combineWithFast)
    throw new Error(`model ${accurate.id}: unsupported combine ${JSON.stringify(accurate.combine)}`);
  const scoreFast = (input: DetectorInput, views: TextView[]): [Window[], number[]] => {
    const windows = windowsOf(input, fastEntry.max_chars, views);
    return [windows, windows.map((w) => deps.fast.score(w.text))];
  };
  const runFast = (input: DetectorInput, views: TextView[], note?: string): DetectorResult =>
    finding(input, best(...scoreFast(input, views)), note ? `${fastSource};${note}` : fastSource, fastThresholds, note);

  return {
    name: 'prompt_injection',
    version: '1.1.0',
    model:
      (accurate
        ? `${accurate.id}@${accurate.version} (accurate, auto); ${fastEntry.id}@${fastEntry.version} (fast)`
        : `${fastEntry.id}@${fastEntry.version}`) +
      (deps.suffix ? `; ${deps.suffix.entry.id}@${deps.suffix.entry.version} (suffix)` : ''),
    kind: 'score',
    category: 'prompt_injection',
    surfaces: ALL_SURFACES,
    thresholds: defaultThresholds,
    frameworks: frameworksFor('prompt_injection'),
    detect(input) {
      const suffix = suffixScore(deps.suffix ?? null, input);
      const result = detectModels(input);
      const fold = (r: DetectorResult): DetectorResult =>
        withSuffix(input, r, deps.suffix ?? null, suffix, defaultThresholds);
      return result instanceof Promise ? result.then(fold) : fold(result);
    },
  };

  function detectModels(input: DetectorInput): DetectorResult | Promise<DetectorResult> {
    const views = decodedViews(input.text.text);
    if (input.tier === 'fast') return runFast(input, views);
    if (!accurate || !deps.models) {
      deps.onFallback?.('model_not_loaded');
      return runFast(input, views, `fallback_from=accurate;reason=model_not_loaded`);
    }
    const windows = windowsOf(input, accurate.max_chars, views);
    const source = `model:${accurate.id}@${accurate.version}`;
    return deps.models
      .classify(
        accurate.id,
        windows.map((w) => w.text),
        input.deadlineAt ?? Date.now() + 60_000,
      )
      .then(
        (scores) => {
          const top = best(windows, scores);
          if (!combineWithFast) return finding(input, top, source, defaultThresholds);
          // The manifest's thresholds apply to the mean of the two models' scores (each the max over its own windows).
          const fastTop = best(...scoreFast(input, views));
          const score = (top.score + fastTop.score) / 2;
          const window = fastTop.score > top.score ? fastTop.window : top.window;
          return finding(input, { score, window }, `${source}+${fastEntry.id}@${fastEntry.version}`, defaultThresholds);
        },
        (err: unknown) => {
          if (!(err instanceof ModelUnavailableError)) throw err;
          deps.onFallback?.(err.reason);
          return runFast(input, views, `fallback_from=accurate;reason=${err.reason}`);
        },
      );
  }
}

function finding(
  input: DetectorInput,
  { score, window }: { score: number; window: Window | null },
  source: string,
  thresholds: Thresholds,
  note?: string,
): DetectorResult {
  const items = window && score > thresholds.warn_above ? [itemFor(input, window, LABEL, score, source)] : [];
  return { detector: 'prompt_injection', score, items, thresholds, ...(note ? { note } : {}) };
}

function requireThresholds(entry: ModelEntry): Thresholds {
  if (!entry.thresholds) throw new Error(`model ${entry.id} has no thresholds in the manifest`);
  return entry.thresholds;
}
