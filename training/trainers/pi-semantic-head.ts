/**
 * A logistic head on frozen sentence-encoder features (issue 17, measurement step): features are
 * standardised with the training mean/std, weights fitted by full-batch gradient descent with Adam and
 * L2, deterministic (zero init, no sampling). Plain TypeScript, no dependencies, so the same math can be
 * served (`inference/logistic-head.ts` holds the serving half: the head's logit and its JSON).
 */
import { sigmoid, type LogisticHead } from '../../inference/logistic-head.ts';

export interface HeadOptions {
  /** L2 penalty on the weights (not the bias), per row: loss = mean log-loss + l2/2 · |w|² */
  l2?: number;
  epochs?: number;
  learningRate?: number;
  /** weight of positive rows relative to negatives (default: balances the classes) */
  positiveWeight?: number;
}

/** Column mean and std (std floored at 1e-6) of row-major `x` [n, dim]. */
export function columnStats(x: Float32Array, n: number, dim: number): { mean: number[]; std: number[] } {
  const mean = new Array<number>(dim).fill(0);
  const sq = new Array<number>(dim).fill(0);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < dim; j++) {
      const v = x[i * dim + j] as number;
      mean[j] = (mean[j] as number) + v;
      sq[j] = (sq[j] as number) + v * v;
    }
  const std = new Array<number>(dim);
  for (let j = 0; j < dim; j++) {
    mean[j] = (mean[j] as number) / Math.max(1, n);
    std[j] = Math.max(1e-6, Math.sqrt(Math.max(0, (sq[j] as number) / Math.max(1, n) - (mean[j] as number) ** 2)));
  }
  return { mean, std };
}

/** Fits a head on row-major `x` [n, dim] with 0/1 `labels`. */
export function trainHead(
  x: Float32Array,
  labels: ArrayLike<number>,
  dim: number,
  options: HeadOptions = {},
): LogisticHead {
  const n = labels.length;
  if (x.length !== n * dim) throw new Error(`x holds ${x.length} values, expected ${n} × ${dim}`);
  const l2 = options.l2 ?? 1e-3;
  const epochs = options.epochs ?? 300;
  const lr = options.learningRate ?? 0.05;
  let pos = 0;
  for (let i = 0; i < n; i++) pos += labels[i] === 1 ? 1 : 0;
  const posW = options.positiveWeight ?? (pos > 0 && pos < n ? (n - pos) / pos : 1);
  const { mean, std } = columnStats(x, n, dim);
  const z = new Float32Array(n * dim);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < dim; j++)
      z[i * dim + j] = ((x[i * dim + j] as number) - (mean[j] as number)) / (std[j] as number);
  const w = new Float64Array(dim + 1); // last = bias
  const m = new Float64Array(dim + 1);
  const v = new Float64Array(dim + 1);
  const g = new Float64Array(dim + 1);
  let totalW = 0;
  for (let i = 0; i < n; i++) totalW += labels[i] === 1 ? posW : 1;
  for (let t = 1; t <= epochs; t++) {
    g.fill(0);
    for (let i = 0; i < n; i++) {
      let s = w[dim] as number;
      const o = i * dim;
      for (let j = 0; j < dim; j++) s += (w[j] as number) * (z[o + j] as number);
      const y = labels[i] === 1 ? 1 : 0;
      const r = (y ? posW : 1) * (sigmoid(s) - y);
      for (let j = 0; j < dim; j++) g[j] = (g[j] as number) + r * (z[o + j] as number);
      g[dim] = (g[dim] as number) + r;
    }
    for (let j = 0; j <= dim; j++) {
      const gj = (g[j] as number) / totalW + (j < dim ? l2 * (w[j] as number) : 0);
      m[j] = 0.9 * (m[j] as number) + 0.1 * gj;
      v[j] = 0.999 * (v[j] as number) + 0.001 * gj * gj;
      const mh = (m[j] as number) / (1 - 0.9 ** t);
      const vh = (v[j] as number) / (1 - 0.999 ** t);
      w[j] = (w[j] as number) - (lr * mh) / (Math.sqrt(vh) + 1e-8);
    }
  }
  return { dim, mean, std, weights: Array.from(w.subarray(0, dim)), bias: w[dim] as number };
}

/**
 * The z-scored average of several score columns: each column as a logit (scores clamped to
 * [1e-6, 1 − 1e-6]), standardised over the given rows (label-free), then averaged.
 */
export function zAverage(columns: readonly (readonly number[])[]): number[] {
  if (columns.length === 0) return [];
  const n = (columns[0] as readonly number[]).length;
  const out = new Array<number>(n).fill(0);
  for (const col of columns) {
    if (col.length !== n) throw new Error('zAverage: columns differ in length');
    const lg = col.map((s) => {
      const p = Math.min(1 - 1e-6, Math.max(1e-6, s));
      return Math.log(p / (1 - p));
    });
    const mu = lg.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(lg.reduce((a, b) => a + (b - mu) ** 2, 0) / n) || 1;
    for (let i = 0; i < n; i++) out[i] = (out[i] as number) + ((lg[i] as number) - mu) / sd / columns.length;
  }
  return out;
}
