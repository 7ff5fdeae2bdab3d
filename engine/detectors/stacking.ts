/**
 * A manifest's logistic stack (`combine.method: 'logistic'`), served: sigmoid(bias + Σ weight · logit)
 * over the inputs' scores (each the max over its own windows), with
 * - a `reduced` form fitted without one input (the sentence encoder), used on the surfaces it lists and
 *   wherever the caller asks for it (a fast tier);
 * - a `cascade` for the auto tier: the cheap inputs run first and the deferred one is skipped when the
 *   score stays at or below warn even with the deferred input at its `upper_logit`, or (the `below` form)
 *   when every cheap input scores at or below `below`: the reduced stack then answers, if at or below warn.
 * The trainers fit the same formula (`training/trainers/stack-fit.ts`). Used by prompt injection
 * (pi-accurate + pi-fast + pi-semantic) and toxicity (toxicity + toxicity-semantic).
 */
import { clampedLogit, sigmoid } from '../../inference/logistic-head.ts';
import type { Combine, ModelEntry } from '../../inference/manifest.ts';
import type { Window } from './scoring.ts';

export interface Top {
  score: number;
  window: Window | null;
}

export interface Cascade {
  /** the input the auto tier runs only when the others leave the decision open */
  defer: string;
  /**
   * The score without the deferred input (`upper_logit`: with it at that logit; `below`: the reduced
   * stack's), when that stays at or below `warnAbove` (the scan is decided without it); null when the
   * deferred input must run.
   */
  early(tops: ReadonlyMap<string, Top>, warnAbove: number): Top | null;
}

export interface Stack {
  /** the pool models the stack runs, in the order given as `served` */
  pool: ModelEntry[];
  /** the in-process inputs it reads (scored by the caller) */
  local: ModelEntry[];
  /** an input is not served here (not loaded): the stack cannot score */
  missing: boolean;
  source: string;
  /** The score and span from each input's best window (keyed by model id). */
  score(tops: ReadonlyMap<string, Top>): Top;
  cascade?: Cascade;
}

export type LogisticCombine = Extract<Combine, { method: 'logistic' }>;

export const tag = (e: ModelEntry): string => `${e.id}@${e.version}`;

/**
 * The stack of `owner`'s logistic `combine` for content of `surface`: the reduced one on its surfaces or
 * when `reduced` is asked for. `served`: the pool models loaded here; `local`: in-process models.
 * @throws Error on a malformed combine (weights not matching inputs, an owner not among them, a cascade on a
 * zero-weight input, a `below` cascade without a reduced stack dropping its input or outside (0, 1), a
 * reduced stack dropping an unknown input)
 */
export function logisticStack(
  owner: ModelEntry,
  c: LogisticCombine,
  served: readonly ModelEntry[],
  local: readonly ModelEntry[],
  opts: { surface?: string; reduced?: boolean } = {},
): Stack {
  const valid = (inputs: string[], weights: number[]): boolean =>
    weights.length === inputs.length && inputs.includes(owner.id);
  const r = c.reduced;
  const reducedInputs = r ? c.inputs.filter((id) => id !== r.drop) : [];
  const cc = c.cascade;
  const below = cc && 'below' in cc ? cc.below : undefined;
  if (
    !valid(c.inputs, c.weights) ||
    (cc && !((c.weights[c.inputs.indexOf(cc.defer)] ?? 0) > 0)) ||
    (below !== undefined && !(below > 0 && below < 1 && r?.drop === cc?.defer)) ||
    (r && (!c.inputs.includes(r.drop) || !valid(reducedInputs, r.weights)))
  )
    throw new Error(`model ${owner.id}: unsupported combine ${JSON.stringify(c)}`);
  const useReduced = r && (opts.reduced || (opts.surface !== undefined && r.surfaces.includes(opts.surface)));
  if (useReduced) return linearStack(reducedInputs, r.weights, r.bias, undefined, served, local);
  const small =
    r && below !== undefined ? linearStack(reducedInputs, r.weights, r.bias, undefined, served, local) : null;
  return linearStack(c.inputs, c.weights, c.bias, cc, served, local, small);
}

/**
 * sigmoid(bias + Σ weight · logit) over `inputs`, with the auto tier's cascade when one is given (`small`:
 * the reduced stack a `below` cascade answers with).
 */
function linearStack(
  inputs: readonly string[],
  weights: readonly number[],
  bias: number,
  cascade: NonNullable<LogisticCombine['cascade']> | undefined,
  served: readonly ModelEntry[],
  local: readonly ModelEntry[],
  small: Stack | null = null,
): Stack {
  // an input this deployment does not serve (its model not loaded) leaves the stack unservable: the caller falls back
  const pool = served.filter((e) => inputs.includes(e.id));
  const usedLocal = local.filter((e) => inputs.includes(e.id));
  const parts = inputs.map((id) => usedLocal.find((e) => e.id === id) ?? pool.find((e) => e.id === id));
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
    local: usedLocal,
    missing: parts.some((p) => !p),
    source: `model:${parts.map((p) => (p ? tag(p) : '?')).join('+')}`,
    score: (t) => stack(t),
    ...(cascade && {
      cascade: {
        defer: cascade.defer,
        early(t, warnAbove) {
          let top: Top;
          if ('below' in cascade) {
            // every cheap input at or below `below`: the reduced stack decides
            if (!small || inputs.some((id) => id !== cascade.defer && t.get(id)!.score > cascade.below)) return null;
            top = small.score(t);
          } else top = stack(t, cascade.defer, cascade.upper_logit);
          return top.score <= warnAbove ? top : null;
        },
      },
    }),
  };
}
