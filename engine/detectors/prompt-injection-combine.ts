/**
 * How the prompt-injection detector's accurate and auto tiers combine models (the accurate entry's
 * manifest `combine`): the accurate model alone, the mean with pi-fast, or a logistic stack over
 * pi-accurate, pi-fast and the sentence-encoder model pi-semantic (`stacking.ts`: its reduced form off the
 * prompt-like surfaces, its cascade for the auto tier).
 */
import type { ModelEntry } from '../../inference/manifest.ts';
import { logisticStack, tag, type Cascade, type Top } from './stacking.ts';

export type { Top } from './stacking.ts';

export interface Combination {
  /** the models the pool runs (the accurate one first) */
  pool: ModelEntry[];
  usesFast: boolean;
  /** a model the combination needs is not served here */
  missing: boolean;
  source: string;
  /** The detector's score and span from each model's best window (keyed by model id). */
  score(tops: ReadonlyMap<string, Top>): Top;
  cascade?: Cascade;
}

const noTop: Top = { score: 0, window: null };

/**
 * The combination of an accurate entry for content of `surface`. The span reported is the window of the
 * model that pushed the score up most.
 * @throws Error on a combination this detector does not implement
 */
export function combinationOf(
  accurate: ModelEntry | null,
  fast: ModelEntry,
  semantic: ModelEntry | null,
  surface?: string,
): Combination {
  const none: Combination = { pool: [], usesFast: false, missing: true, source: '', score: () => noTop };
  if (!accurate) return none;
  const c = accurate.combine;
  if (!c)
    return {
      ...none,
      pool: [accurate],
      missing: false,
      source: `model:${tag(accurate)}`,
      score: (t) => t.get(accurate.id)!,
    };
  if (c.method === 'mean' && c.with === fast.id)
    return {
      pool: [accurate],
      usesFast: true,
      missing: false,
      source: `model:${tag(accurate)}+${tag(fast)}`,
      score(t) {
        const a = t.get(accurate.id)!;
        const f = t.get(fast.id)!;
        // The manifest's thresholds apply to the mean of the two models' scores (each the max over its own windows).
        return { score: (a.score + f.score) / 2, window: f.score > a.score ? f.window : a.window };
      },
    };
  if (c.method !== 'logistic') throw new Error(`model ${accurate.id}: unsupported combine ${JSON.stringify(c)}`);
  const s = logisticStack(accurate, c, [accurate, ...(semantic ? [semantic] : [])], [fast], { surface });
  return { ...s, usesFast: s.local.length > 0 };
}
