/**
 * Prompt injection and jailbreaks. The tier picks the model: `fast` is the in-process hashed
 * n-gram linear model; `accurate` uses the pool's classifier combined with others as its manifest
 * entry's `combine` says (a logistic stacker over pi-accurate, pi-fast and the sentence-encoder model
 * pi-semantic: `prompt-injection-combine.ts`); `auto` is the same stack run as a cascade — the encoder
 * only when the cheaper models leave the scan undecided.
 * When the accurate model cannot answer (not loaded, worker crashed), the scan retries once with
 * fast and says so in the item's `source`. On prompt-like surfaces every tier also runs the in-process
 * adversarial-suffix scorer (pi-suffix, `adversarial-suffix.ts`): the score is the max of the two and an
 * `adversarial_suffix` item says when that family fired.
 */
import type { CharLm } from '../../inference/char-lm.ts';
import type { LinearModel } from '../../inference/linear-model.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import type { Detector, DetectorInput, DetectorResult } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { decodedViewsSteps, type TextView } from '../views.ts';
import { andThen, runSteps, type Steps } from '../../lib/steps.ts';
import { suffixScore, withSuffix, type SuffixScore } from './adversarial-suffix.ts';
import { combinationOf, type Combination, type Top } from './prompt-injection-combine.ts';
import { best, itemFor, scorePoolModels, windowsOf, type Window } from './scoring.ts';
import { intentMatch, withIntent, type IntentHit, type IntentRules } from './intent-rules.ts';
import { falseAlarmRates, publishedThresholds, scaleOf, type Scale } from './calibration.ts';

const LABEL = 'prompt_injection';
/** The item source of a rule match. */
export const INTENT_SOURCE = 'rules:intent-lexicon';

export interface PromptInjectionDeps {
  fast: LinearModel;
  /** The accurate model's manifest entry, or null when this deployment does not serve it. */
  accurate: ModelEntry | null;
  /** Runs the accurate model (null: no model server; every scan takes the fast tier). */
  models: ModelClient | null;
  /** The semantic model's manifest entry (pi-semantic, run by the pool) when loaded; a stacker may need it. */
  semantic?: ModelEntry | null;
  /** The adversarial-suffix scorer (pi-suffix), or null when this deployment does not serve it. */
  suffix?: CharLm | null;
  /** Runs pi-suffix on the pool's threads (they loaded it); null: it runs in process. */
  suffixModels?: ModelClient | null;
  /** Called when a scan fell back from accurate to fast (for metrics). */
  onFallback?(reason: string): void;
  /** Called per auto-tier scan of a cascading stack: decided without the deferred model, or with it (for metrics). */
  onCascade?(stage: 'early' | 'full'): void;
  /** The canonical-intent rules (`intent-rules.ts`), or null when this deployment does not run them. */
  intents?: IntentRules | null;
  /** Raw scores on each model's own thresholds, uncalibrated (what `npm run train:thresholds` fits on). */
  raw?: boolean;
}

export function createPromptInjectionDetector(deps: PromptInjectionDeps): Detector {
  const fastEntry = deps.fast.entry;
  const fastSource = `model:${fastEntry.id}@${fastEntry.version}`;
  const raw = deps.raw ?? false;
  const intents = deps.intents ?? null;
  const accurate = deps.accurate;
  const defaultThresholds = publishedThresholds(accurate ?? fastEntry, raw);
  const rates = falseAlarmRates(accurate ?? fastEntry, raw);
  const fastScale = new Map(ALL_SURFACES.map((s) => [s, scaleOf(fastEntry, 'fast', s, raw)]));
  const stackScale = new Map(ALL_SURFACES.map((s) => [s, accurate ? scaleOf(accurate, 'accurate', s, raw) : null]));

  const bySurface = new Map(ALL_SURFACES.map((s) => [s, combinationOf(accurate, fastEntry, deps.semantic ?? null, s)]));
  function* fastSteps(input: DetectorInput, views: TextView[]): Steps<Top> {
    const windows = windowsOf(input, fastEntry.max_chars, views);
    const scores: number[] = [];
    for (const w of windows) {
      scores.push(deps.fast.score(w.text));
      yield;
    }
    return best(windows, scores);
  }
  /** pi-fast's best window: at once, or paced for a long text. */
  const scoreFast = (input: DetectorInput, views: TextView[]): Top | Promise<Top> =>
    runSteps(fastSteps(input, views), input.pace);
  const runFast = (input: DetectorInput, views: TextView[], note?: string): DetectorResult | Promise<DetectorResult> =>
    andThen(scoreFast(input, views), (top) =>
      finding(input, top, note ? `${fastSource};${note}` : fastSource, fastScale.get(input.surface)!, note),
    );

  return {
    name: 'prompt_injection',
    version: '2.0.0',
    model:
      (accurate
        ? `${bySurface.get('user_message')!.source.slice('model:'.length)} (accurate, auto); ${fastEntry.id}@${fastEntry.version} (fast)`
        : `${fastEntry.id}@${fastEntry.version}`) +
      (deps.suffix ? `; ${deps.suffix.entry.id}@${deps.suffix.entry.version} (suffix)` : ''),
    kind: 'score',
    category: 'prompt_injection',
    surfaces: ALL_SURFACES,
    thresholds: defaultThresholds,
    ...(rates ? { falseAlarmRates: rates } : {}),
    frameworks: frameworksFor('prompt_injection'),
    detect(input) {
      // the models first: their pool requests queue before the suffix scorer's in-process work
      const result = detectModels(input);
      if (raw) return result; // the models' own score: the fit adds the suffix and intent families itself
      const suffix = suffixScore(deps.suffix ?? null, input, deps.suffixModels);
      const intent = intentMatch(intents, input);
      const fold = (s: SuffixScore | null, h: IntentHit | null, r: DetectorResult): DetectorResult =>
        withIntent(
          input,
          withSuffix(input, r, deps.suffix ?? null, s, defaultThresholds),
          h,
          defaultThresholds,
          INTENT_SOURCE,
        );
      if (suffix instanceof Promise || intent instanceof Promise || result instanceof Promise)
        return Promise.all([suffix, intent, result]).then(([s, h, r]) => fold(s, h, r));
      return fold(suffix, intent, result);
    },
  };

  function detectModels(input: DetectorInput): DetectorResult | Promise<DetectorResult> {
    return andThen(runSteps(decodedViewsSteps(input.text.text), input.pace), (views) => detectViews(input, views));
  }

  function detectViews(input: DetectorInput, views: TextView[]): DetectorResult | Promise<DetectorResult> {
    if (input.tier === 'fast') return runFast(input, views);
    const models = deps.models;
    const combine = bySurface.get(input.surface)!;
    if (!accurate || !models || combine.missing) {
      deps.onFallback?.('model_not_loaded');
      return runFast(input, views, `fallback_from=accurate;reason=model_not_loaded`);
    }
    return runStack(input, views, models, combine);
  }

  async function runStack(
    input: DetectorInput,
    views: TextView[],
    models: ModelClient,
    combine: Combination,
  ): Promise<DetectorResult> {
    const tops = new Map<string, Top>();
    const scale = stackScale.get(input.surface)!;
    const run = (entries: ModelEntry[]): Promise<void> => scorePoolModels(models, input, entries, views, tops);
    try {
      const cascade = input.tier === 'auto' ? combine.cascade : undefined;
      // the pool models queue first; pi-fast scores on this thread while they run
      const first = run(combine.pool.filter((e) => e.id !== cascade?.defer));
      if (combine.usesFast) {
        first.catch(() => undefined); // awaited below: no unhandled rejection while pi-fast scores
        tops.set(fastEntry.id, await scoreFast(input, views));
      }
      await first;
      if (cascade) {
        const early = cascade.early(tops, scale.rawWarn);
        deps.onCascade?.(early ? 'early' : 'full');
        if (early) return finding(input, early, `${combine.source};cascade=without:${cascade.defer}`, scale);
        await run(combine.pool.filter((e) => e.id === cascade.defer));
      }
      return finding(input, combine.score(tops), combine.source, scale);
    } catch (err) {
      if (!(err instanceof ModelUnavailableError)) throw err;
      deps.onFallback?.(err.reason);
      return runFast(input, views, `fallback_from=accurate;reason=${err.reason}`);
    }
  }
}

/** The result of the best window's raw score, on `scale`. */
function finding(
  input: DetectorInput,
  top: { score: number; window: Window | null },
  source: string,
  scale: Scale,
  note?: string,
): DetectorResult {
  const { window } = top;
  const score = scale.map(top.score);
  const thresholds = scale.thresholds;
  const items = window && score > thresholds.warn_above ? [itemFor(input, window, LABEL, score, source)] : [];
  return { detector: 'prompt_injection', score, items, thresholds, ...(note ? { note } : {}) };
}
