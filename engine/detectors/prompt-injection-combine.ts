/**
 * How the prompt-injection detector's accurate and auto tiers combine models (the accurate entry's
 * manifest `combine`): the accurate model alone, the mean with pi-fast, or a logistic stacker over
 * pi-accurate, pi-fast and the sentence-encoder model pi-semantic. A stacker may carry a `cascade`: the
 * auto tier then runs the cheap inputs first and skips the deferred one (the encoder) when the score
 * stays below warn even with the deferred input at `upper_logit`.
 */
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import type { ModelEntry } from '../../inference/manifest.ts';
import type { Window } from './scoring.ts';

export interface Top {
  score: number;
  window: Window | null;
}

export interface Cascade {
  /** the input the auto tier runs only when the others leave the decision open */
  defer: string;
  /**
   * The score with the deferred input at its `upper_logit`, when that stays at or below `warnAbove`
   * (the scan is decided without it); null when the deferred input must run.
   */
  early(tops: ReadonlyMap<string, Top>, warnAbove: number): Top | null;
}

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
const tag = (e: ModelEntry): string => `${e.id}@${e.version}`;

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
  const valid = (inputs: string[], weights: number[]): boolean =>
    weights.length === inputs.length && inputs.includes(accurate.id);
  const cascadeOk = c.method === 'logistic' && (!c.cascade || (c.weights[c.inputs.indexOf(c.cascade.defer)] ?? 0) > 0);
  const r = c.method === 'logistic' ? c.reduced : undefined;
  const reducedInputs = r && c.method === 'logistic' ? c.inputs.filter((id) => id !== r.drop) : [];
  if (
    c.method !== 'logistic' ||
    !valid(c.inputs, c.weights) ||
    !cascadeOk ||
    (r && (!c.inputs.includes(r.drop) || !valid(reducedInputs, r.weights)))
  )
    throw new Error(`model ${accurate.id}: unsupported combine ${JSON.stringify(c)}`);
  // off the prompt-like surfaces a reduced stack, fitted without the dropped input, scores without running it
  if (r && surface !== undefined && r.surfaces.includes(surface))
    return logistic(reducedInputs, r.weights, r.bias, undefined, accurate, fast, semantic);
  return logistic(c.inputs, c.weights, c.bias, c.cascade, accurate, fast, semantic);
}

/** sigmoid(bias + Σ weight · logit) over `inputs`, with the auto tier's cascade when one is given. */
function logistic(
  inputs: readonly string[],
  weights: readonly number[],
  bias: number,
  cascade: { defer: string; upper_logit: number } | undefined,
  accurate: ModelEntry,
  fast: ModelEntry,
  semantic: ModelEntry | null,
): Combination {
  // an input this deployment does not serve (pi-semantic not loaded) leaves the stack unservable: the tier falls back
  const pool = [accurate, ...(semantic && inputs.includes(semantic.id) ? [semantic] : [])];
  const parts = inputs.map((id) => (id === fast.id ? fast : pool.find((e) => e.id === id)));
  /** bias + Σ weight · logit over the inputs (the skipped one at `skipLogit`), and the window that added most */
  const stack = (t: ReadonlyMap<string, Top>, skip?: string, skipLogit = 0): Top => {
    let z = bias;
    let window: Window | null = null;
    let most = -Infinity;
    inputs.forEach((id, i) => {
      const top = id === skip ? null : t.get(id)!;
      const part = weights[i]! * (top ? clampedLogit(top.score) : skipLogit);
      z += part;
      if (part > most && top?.window) [most, window] = [part, top.window];
    });
    return { score: sigmoid(z), window };
  };
  return {
    pool,
    usesFast: inputs.includes(fast.id),
    missing: parts.some((p) => !p),
    source: `model:${parts.map((p) => (p ? tag(p) : '?')).join('+')}`,
    score: (t) => stack(t),
    ...(cascade && {
      cascade: {
        defer: cascade.defer,
        early(t, warnAbove) {
          const top = stack(t, cascade.defer, cascade.upper_logit);
          return top.score <= warnAbove ? top : null;
        },
      },
    }),
  };
}
