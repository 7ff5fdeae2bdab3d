/**
 * A logistic head over a fixed-length feature vector (the sentence encoder's 512-d embedding): features
 * standardised with the training mean/std, then w · x + b. Trained by `training/trainers/pi-semantic-head.ts`,
 * stored as JSON (`serializeHead`), served by `semantic-classifier.ts`.
 */

export interface LogisticHead {
  dim: number;
  mean: number[];
  std: number[];
  weights: number[];
  bias: number;
}

export const sigmoid = (z: number): number => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));

/** Scores are clamped to [LOGIT_EPSILON, 1 − LOGIT_EPSILON] before a logit (a stacker's inputs). */
export const LOGIT_EPSILON = 1e-4;

/** logit(p), p clamped to [LOGIT_EPSILON, 1 − LOGIT_EPSILON]. */
export function clampedLogit(p: number): number {
  const q = Math.min(1 - LOGIT_EPSILON, Math.max(LOGIT_EPSILON, p));
  return Math.log(q / (1 - q));
}

/** The head's logit for one row of `x` starting at `offset`. */
export function headLogit(head: LogisticHead, x: ArrayLike<number>, offset = 0): number {
  let z = head.bias;
  for (let j = 0; j < head.dim; j++)
    z +=
      (head.weights[j] as number) * (((x[offset + j] as number) - (head.mean[j] as number)) / (head.std[j] as number));
  return z;
}

export function headScore(head: LogisticHead, x: ArrayLike<number>, offset = 0): number {
  return sigmoid(headLogit(head, x, offset));
}

/** JSON of a head with weights rounded to 6 significant digits (small, diff-able). */
export function serializeHead(head: LogisticHead): string {
  const r = (a: readonly number[]): number[] => a.map((x) => Number(x.toPrecision(6)));
  return JSON.stringify({
    dim: head.dim,
    mean: r(head.mean),
    std: r(head.std),
    weights: r(head.weights),
    bias: Number(head.bias.toPrecision(6)),
  });
}

export function parseHead(json: string): LogisticHead {
  const o = JSON.parse(json) as Partial<LogisticHead>;
  const dim = o.dim;
  if (typeof dim !== 'number' || !Number.isInteger(dim) || dim <= 0) throw new Error('head: bad dim');
  for (const k of ['mean', 'std', 'weights'] as const) {
    const a = o[k];
    if (!Array.isArray(a) || a.length !== dim || a.some((x) => typeof x !== 'number' || !Number.isFinite(x)))
      throw new Error(`head: ${k} must be ${dim} finite numbers`);
  }
  if (typeof o.bias !== 'number' || !Number.isFinite(o.bias)) throw new Error('head: bad bias');
  if ((o.std as number[]).some((s) => s <= 0)) throw new Error('head: std must be > 0');
  return { dim, mean: o.mean as number[], std: o.std as number[], weights: o.weights as number[], bias: o.bias };
}
