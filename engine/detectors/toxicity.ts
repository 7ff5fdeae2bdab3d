/**
 * Toxicity: the pool's lexical classifier (toxicity) and, where the manifest stacks it, the sentence-encoder
 * model (toxicity-semantic) over each window of the content and of its spelling view (letter-spaced words
 * joined, leetspeak read as letters: `views.ts`). The entry's `combine` is a logistic stack
 * (`stacking.ts`): the fast tier and the non-conversation surfaces score with its reduced (lexical) form,
 * the accurate tier runs both models, and the auto tier runs the encoder only when the lexical score leaves
 * the decision open. Without the encoder loaded, every tier takes the reduced form.
 *
 * When the lexical model cannot answer, the detector reports score 0 with a note (there is no in-process
 * toxicity model to fall back to) and the scan goes on: a degraded detector never fails a scan; when only
 * the encoder fails, the reduced form answers.
 */
import type { ModelEntry } from '../../inference/manifest.ts';
import type { Detector, DetectorInput, DetectorResult } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { runSteps } from '../../lib/steps.ts';
import { spellingViewSteps, type TextView } from '../views.ts';
import { itemFor, scorePoolModels } from './scoring.ts';
import { logisticStack, tag, type Stack, type Top } from './stacking.ts';
import { intentMatch, withIntent, type IntentRules } from './intent-rules.ts';
import { falseAlarmRates, publishedThresholds, scaleOf, type Scale } from './calibration.ts';

/** The item source of a term rule match. */
export const TERMS_SOURCE = 'rules:toxic-lexicon';

export interface ToxicityDeps {
  entry: ModelEntry;
  /** The sentence-encoder input of the stack when loaded (null: every tier scores with the reduced form). */
  semantic?: ModelEntry | null;
  /** Runs the pool's models (null: the toxicity model is not served here). */
  models: ModelClient | null;
  onUnavailable?(reason: string): void;
  onCascade?(stage: 'early' | 'full'): void;
  /** The term rules (`intent-rules.ts` `TOXICITY_RULES`), or null when this deployment does not run them. */
  terms?: IntentRules | null;
  /** Raw scores on the model's own thresholds, uncalibrated (what `npm run train:thresholds` fits on). */
  raw?: boolean;
}

export function createToxicityDetector(deps: ToxicityDeps): Detector {
  const { entry, models } = deps;
  const raw = deps.raw ?? false;
  const terms = deps.terms ?? null;
  const thresholds = publishedThresholds(entry, raw);
  const rates = falseAlarmRates(entry, raw);
  const c = entry.combine;
  if (c && c.method !== 'logistic') throw new Error(`model ${entry.id}: unsupported combine ${JSON.stringify(c)}`);
  const served = [entry, ...(deps.semantic ? [deps.semantic] : [])];
  /** the input the reduced form drops: the sentence encoder */
  const encoder = c?.reduced?.drop ?? c?.cascade?.defer;
  /** the lexical form: the fast tier's, and the fallback when the encoder is not served */
  const lexical = !c ? alone(entry) : c.reduced ? logisticStack(entry, c, served, [], { reduced: true }) : null;
  /** each surface's stacks, with the scale of each (the full stack's is the reduced one's where it drops the encoder) */
  const stacks = new Map<string, { full: Stack; reduced: Stack; fullScale: Scale; reducedScale: Scale }>();
  for (const surface of ALL_SURFACES) {
    const full = c ? logisticStack(entry, c, served, [], { surface }) : alone(entry);
    const reduced = lexical ?? full;
    const same = full.missing || full.source === reduced.source;
    const reducedScale = scaleOf(entry, 'fast', surface, raw);
    stacks.set(surface, {
      full: full.missing ? reduced : full,
      reduced,
      fullScale: same ? reducedScale : scaleOf(entry, 'accurate', surface, raw),
      reducedScale,
    });
  }
  const { full } = stacks.get('user_message')!;

  return {
    name: 'toxicity',
    version: '2.0.0',
    model: full.source.slice('model:'.length),
    kind: 'score',
    category: 'toxicity',
    surfaces: ALL_SURFACES,
    thresholds,
    ...(rates ? { falseAlarmRates: rates } : {}),
    frameworks: frameworksFor('toxicity'),
    async detect(input): Promise<DetectorResult> {
      const result = await detectModels(input);
      if (raw || result.note?.startsWith('model_unavailable')) return result;
      return withIntent(input, result, await intentMatch(terms, input), thresholds, TERMS_SOURCE);
    },
  };

  async function detectModels(input: DetectorInput): Promise<DetectorResult> {
    if (!models)
      return { detector: 'toxicity', score: 0, items: [], note: 'model_unavailable;reason=model_not_loaded' };
    const s = stacks.get(input.surface)!;
    const stack = input.tier === 'fast' ? s.reduced : s.full;
    const scale = input.tier === 'fast' ? s.reducedScale : s.fullScale;
    // not awaited when already there: the request below then queues in the same run as pii-ner's, and
    // the pool takes both in one task (workers/dispatcher.ts)
    const viewOf = runSteps(spellingViewSteps(input.text.text), input.pace);
    const view = viewOf instanceof Promise ? await viewOf : viewOf;
    const views: TextView[] = view ? [view] : [];
    const tops = new Map<string, Top>();
    const run = (entries: ModelEntry[]): Promise<void> => scorePoolModels(models, input, entries, views, tops);
    // the encoder runs after the lexical model (the auto tier's cascade may skip it; when it fails, the reduced form answers)
    const defer = stack.pool.some((e) => e.id === encoder) ? encoder : undefined;
    try {
      await run(stack.pool.filter((e) => e.id !== defer));
    } catch (err) {
      if (!(err instanceof ModelUnavailableError)) throw err;
      deps.onUnavailable?.(err.reason);
      return { detector: 'toxicity', score: 0, items: [], note: `model_unavailable;reason=${err.reason}` };
    }
    if (defer) {
      const cascade = input.tier === 'auto' ? stack.cascade : undefined;
      const early = cascade ? cascade.early(tops, scale.rawWarn) : null;
      if (cascade) deps.onCascade?.(early ? 'early' : 'full');
      if (early) return finding(input, early, `${stack.source};cascade=without:${defer}`, scale);
      try {
        await run(stack.pool.filter((e) => e.id === defer));
      } catch (err) {
        // the encoder failed: the reduced form scores from what the lexical model said
        if (!(err instanceof ModelUnavailableError)) throw err;
        deps.onUnavailable?.(err.reason);
        return {
          ...finding(input, s.reduced.score(tops), `${s.reduced.source};fallback_from=${defer}`, s.reducedScale),
          note: `fallback_from=${defer};reason=${err.reason}`,
        };
      }
    }
    return finding(input, stack.score(tops), stack.source, scale);
  }
}

/** The lexical model alone (a manifest without `combine`). */
function alone(entry: ModelEntry): Stack {
  return {
    pool: [entry],
    local: [],
    missing: false,
    source: `model:${tag(entry)}`,
    score: (t) => t.get(entry.id)!,
  };
}

/** The result of the best window's raw score, on `scale`. */
function finding(input: DetectorInput, top: Top, source: string, scale: Scale): DetectorResult {
  const { window } = top;
  const score = scale.map(top.score);
  const items = window && score > scale.thresholds.warn_above ? [itemFor(input, window, 'toxic', score, source)] : [];
  return { detector: 'toxicity', score, items };
}
