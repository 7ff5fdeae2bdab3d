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
import type { ModelEntry, Thresholds } from '../../inference/manifest.ts';
import type { Detector, DetectorInput, DetectorResult } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { runSteps } from '../../lib/steps.ts';
import { spellingViewSteps, type TextView } from '../views.ts';
import { itemFor, scorePoolModels } from './scoring.ts';
import { logisticStack, tag, type Stack, type Top } from './stacking.ts';

export interface ToxicityDeps {
  entry: ModelEntry;
  /** The sentence-encoder input of the stack when loaded (null: every tier scores with the reduced form). */
  semantic?: ModelEntry | null;
  /** Runs the pool's models (null: the toxicity model is not served here). */
  models: ModelClient | null;
  onUnavailable?(reason: string): void;
  onCascade?(stage: 'early' | 'full'): void;
}

export function createToxicityDetector(deps: ToxicityDeps): Detector {
  const { entry, models } = deps;
  if (!entry.thresholds) throw new Error(`model ${entry.id} has no thresholds in the manifest`);
  const thresholds = entry.thresholds;
  const c = entry.combine;
  if (c && c.method !== 'logistic') throw new Error(`model ${entry.id}: unsupported combine ${JSON.stringify(c)}`);
  const served = [entry, ...(deps.semantic ? [deps.semantic] : [])];
  /** the input the reduced form drops: the sentence encoder */
  const encoder = c?.reduced?.drop ?? c?.cascade?.defer;
  /** the lexical form: the fast tier's, and the fallback when the encoder is not served */
  const lexical = !c ? alone(entry) : c.reduced ? logisticStack(entry, c, served, [], { reduced: true }) : null;
  const stacks = new Map<string, { full: Stack; reduced: Stack }>();
  for (const surface of ALL_SURFACES) {
    const full = c ? logisticStack(entry, c, served, [], { surface }) : alone(entry);
    const reduced = lexical ?? full;
    stacks.set(surface, { full: full.missing ? reduced : full, reduced });
  }
  const { full } = stacks.get('user_message')!;

  return {
    name: 'toxicity',
    version: '1.1.0',
    model: full.source.slice('model:'.length),
    kind: 'score',
    category: 'toxicity',
    surfaces: ALL_SURFACES,
    thresholds,
    frameworks: frameworksFor('toxicity'),
    async detect(input): Promise<DetectorResult> {
      if (!models)
        return { detector: 'toxicity', score: 0, items: [], note: 'model_unavailable;reason=model_not_loaded' };
      const s = stacks.get(input.surface)!;
      const stack = input.tier === 'fast' ? s.reduced : s.full;
      const view = await runSteps(spellingViewSteps(input.text.text), input.pace);
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
        const early = cascade ? cascade.early(tops, thresholds.warn_above) : null;
        if (cascade) deps.onCascade?.(early ? 'early' : 'full');
        if (early) return finding(input, early, `${stack.source};cascade=without:${defer}`, thresholds);
        try {
          await run(stack.pool.filter((e) => e.id === defer));
        } catch (err) {
          // the encoder failed: the reduced form scores from what the lexical model said
          if (!(err instanceof ModelUnavailableError)) throw err;
          deps.onUnavailable?.(err.reason);
          return {
            ...finding(input, s.reduced.score(tops), `${s.reduced.source};fallback_from=${defer}`, thresholds),
            note: `fallback_from=${defer};reason=${err.reason}`,
          };
        }
      }
      return finding(input, stack.score(tops), stack.source, thresholds);
    },
  };
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

function finding(input: DetectorInput, top: Top, source: string, thresholds: Thresholds): DetectorResult {
  const { score, window } = top;
  const items = window && score > thresholds.warn_above ? [itemFor(input, window, 'toxic', score, source)] : [];
  return { detector: 'toxicity', score, items };
}
