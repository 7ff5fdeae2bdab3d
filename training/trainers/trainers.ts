/**
 * Training in plain TypeScript: sparse logistic regression and the embedding-bag MLP, both with
 * mini-batch Adam (lazy Adam for the sparse rows: only rows seen in a batch are updated), seeded.
 */
import type { BagMlpParams } from '../bag-mlp.ts';
import { gaussian, mulberry32, shuffleInPlace } from '../prng.ts';

/** Rows of (id, value) pairs in compressed-sparse-row form. */
export class Csr {
  offsets: Int32Array = new Int32Array(1024);
  ids: Int32Array = new Int32Array(1 << 16);
  values: Float32Array = new Float32Array(1 << 16);
  rows = 0;
  nnz = 0;

  push(ids: ArrayLike<number>, values: ArrayLike<number>, n: number): number {
    if (this.rows + 2 > this.offsets.length) {
      const o = new Int32Array(this.offsets.length * 2);
      o.set(this.offsets);
      this.offsets = o;
    }
    if (this.nnz + n > this.ids.length) {
      let cap = this.ids.length;
      while (this.nnz + n > cap) cap *= 2;
      const i2 = new Int32Array(cap);
      i2.set(this.ids.subarray(0, this.nnz));
      const v2 = new Float32Array(cap);
      v2.set(this.values.subarray(0, this.nnz));
      this.ids = i2;
      this.values = v2;
    }
    for (let k = 0; k < n; k++) {
      this.ids[this.nnz + k] = ids[k] as number;
      this.values[this.nnz + k] = values[k] as number;
    }
    this.nnz += n;
    this.rows++;
    this.offsets[this.rows] = this.nnz;
    return this.rows - 1;
  }
}

export interface TrainOptions {
  epochs: number;
  batchSize: number;
  lr: number;
  /** L2 penalty added to the gradient (per parameter, lazily for sparse rows). */
  l2: number;
  seed: number;
  /** Learning rate multiplier per epoch (linear decay to this fraction at the last epoch). */
  finalLrFraction?: number;
  log?: (msg: string) => void;
}

const B1 = 0.9;
const B2 = 0.999;
const EPS = 1e-8;

function lrAt(opts: TrainOptions, epoch: number): number {
  const f = opts.finalLrFraction ?? 1;
  if (opts.epochs <= 1) return opts.lr;
  return opts.lr * (1 - ((1 - f) * epoch) / (opts.epochs - 1));
}

// ---------------------------------------------------------------------------------------------

export interface LinearModelParams {
  weights: Float32Array;
  bias: number;
}

/**
 * Row groups for multiple-instance training: group g is rows [groups[g], groups[g+1]) and is
 * scored as the max over its rows (the engine's max over chunks); the gradient goes to the
 * highest-scoring row. labels / sampleWeights are per group. Without groups every row is a group.
 */
export type Groups = Int32Array | undefined;

function groupCount(csr: Csr, groups: Groups): number {
  return groups ? groups.length - 1 : csr.rows;
}

/** The row that stands for group g: its highest-logit row (the first on ties); g itself without groups. */
function maxRow(groups: Groups, g: number, logit: (r: number) => number): number {
  if (!groups) return g;
  let r = groups[g] as number;
  const end = groups[g + 1] as number;
  if (end - r < 2) return r;
  let best = logit(r);
  for (let r2 = r + 1; r2 < end; r2++) {
    const z2 = logit(r2);
    if (z2 > best) {
      best = z2;
      r = r2;
    }
  }
  return r;
}

/** Logistic regression p = sigmoid(bias + sum_j value_j * w[id_j]). labels 0/1 (per group). */
export function trainLogistic(
  csr: Csr,
  labels: Int8Array,
  sampleWeights: Float32Array,
  buckets: number,
  opts: TrainOptions & { nonNegative?: boolean },
  groups?: Groups,
): LinearModelParams {
  const nonNeg = opts.nonNegative ?? false;
  const w = new Float32Array(buckets);
  const m = new Float32Array(buckets);
  const v = new Float32Array(buckets);
  let bias = 0;
  let mb = 0;
  let vb = 0;
  const grad = new Float32Array(buckets);
  const touched = new Int32Array(buckets);
  const mark = new Uint8Array(buckets);
  const rng = mulberry32(opts.seed);
  const order = Array.from({ length: groupCount(csr, groups) }, (_, i) => i);
  const logit = (r: number): number => {
    const b = csr.offsets[r + 1] as number;
    let z = bias;
    for (let j = csr.offsets[r] as number; j < b; j++)
      z += (csr.values[j] as number) * (w[csr.ids[j] as number] as number);
    return z;
  };
  let step = 0;
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, rng);
    const lr = lrAt(opts, epoch);
    let lossSum = 0;
    let wSum = 0;
    for (let start = 0; start < order.length; start += opts.batchSize) {
      const end = Math.min(order.length, start + opts.batchSize);
      let nt = 0;
      let gb = 0;
      let bw = 0;
      for (let k = start; k < end; k++) {
        const g = order[k] as number;
        const r = maxRow(groups, g, logit);
        const z = logit(r);
        const a = csr.offsets[r] as number;
        const b = csr.offsets[r + 1] as number;
        const p = 1 / (1 + Math.exp(-z));
        const y = labels[g] as number;
        const sw = sampleWeights[g] as number;
        lossSum += -sw * (y === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
        wSum += sw;
        bw += sw;
        const dz = (p - y) * sw;
        gb += dz;
        for (let j = a; j < b; j++) {
          const id = csr.ids[j] as number;
          if (mark[id] === 0) {
            mark[id] = 1;
            touched[nt++] = id;
          }
          grad[id] = (grad[id] as number) + dz * (csr.values[j] as number);
        }
      }
      step++;
      const c1 = 1 - B1 ** step;
      const c2 = 1 - B2 ** step;
      const inv = 1 / bw;
      for (let t = 0; t < nt; t++) {
        const id = touched[t] as number;
        const g = (grad[id] as number) * inv + opts.l2 * (w[id] as number);
        const mi = B1 * (m[id] as number) + (1 - B1) * g;
        const vi = B2 * (v[id] as number) + (1 - B2) * g * g;
        m[id] = mi;
        v[id] = vi;
        const nw = (w[id] as number) - (lr * (mi / c1)) / (Math.sqrt(vi / c2) + EPS);
        w[id] = nonNeg && nw < 0 ? 0 : nw;
        grad[id] = 0;
        mark[id] = 0;
      }
      const g = gb * inv;
      mb = B1 * mb + (1 - B1) * g;
      vb = B2 * vb + (1 - B2) * g * g;
      bias -= (lr * (mb / c1)) / (Math.sqrt(vb / c2) + EPS);
    }
    opts.log?.(`epoch ${epoch + 1}/${opts.epochs} loss ${(lossSum / wSum).toFixed(4)} lr ${lr.toExponential(2)}`);
  }
  return { weights: w, bias };
}

// ---------------------------------------------------------------------------------------------

export interface BagMlpShape {
  buckets: number;
  dim: number;
  classes: number;
}

/**
 * Embedding-bag MLP (see bag-mlp.ts). Binary (classes = 1): labels 0/1, sigmoid + log loss.
 * Multiclass: labels are class indices, softmax + cross-entropy.
 */
export function trainBagMlp(
  csr: Csr,
  labels: Int32Array | Int8Array,
  sampleWeights: Float32Array,
  shape: BagMlpShape,
  opts: TrainOptions & { embInitStd?: number; featureDropout?: number },
  groups?: Groups,
): BagMlpParams {
  const dropout = opts.featureDropout ?? 0;
  const keepScale = 1 / (1 - dropout);
  let kept = new Float32Array(1024);
  const { buckets: B, dim: D, classes: C } = shape;
  const rng = mulberry32(opts.seed);
  const emb = new Float32Array(B * D);
  const initStd = opts.embInitStd ?? 0.1;
  for (let i = 0; i < emb.length; i++) emb[i] = gaussian(rng) * initStd;
  const b0 = new Float32Array(D).fill(0.01);
  const w = new Float32Array(D * C);
  const wStd = Math.sqrt(2 / D);
  for (let i = 0; i < w.length; i++) w[i] = gaussian(rng) * wStd * 0.5;
  const b = new Float32Array(C);

  const mE = new Float32Array(B * D);
  const vE = new Float32Array(B * D);
  const dense = [b0, w, b];
  const mD = dense.map((a) => new Float32Array(a.length));
  const vD = dense.map((a) => new Float32Array(a.length));
  const gD = dense.map((a) => new Float32Array(a.length));
  const [gb0, gw, gb] = gD as [Float32Array, Float32Array, Float32Array];

  // sparse embedding gradient: row -> slot
  const slotOf = new Int32Array(B).fill(-1);
  let slotRows = new Int32Array(4096);
  let gE = new Float32Array(4096 * D);

  const s = new Float64Array(D);
  const ds = new Float64Array(D);
  const z = new Float64Array(C);
  const dz = new Float64Array(C);
  const order = Array.from({ length: groupCount(csr, groups) }, (_, i) => i);
  if (groups && C !== 1) throw new Error('row groups need a binary model');
  /** Binary logit of a row without dropout (to pick a group's max row). */
  const logit = (r: number): number => {
    for (let d = 0; d < D; d++) s[d] = b0[d] as number;
    const e = csr.offsets[r + 1] as number;
    for (let j = csr.offsets[r] as number; j < e; j++) {
      const val = csr.values[j] as number;
      const base = (csr.ids[j] as number) * D;
      for (let d = 0; d < D; d++) s[d] = (s[d] as number) + val * (emb[base + d] as number);
    }
    let zz = b[0] as number;
    for (let d = 0; d < D; d++) if ((s[d] as number) > 0) zz += (s[d] as number) * (w[d] as number);
    return zz;
  };
  let step = 0;
  for (let epoch = 0; epoch < opts.epochs; epoch++) {
    shuffleInPlace(order, rng);
    const lr = lrAt(opts, epoch);
    let lossSum = 0;
    let wSum = 0;
    const t0 = Date.now();
    for (let start = 0; start < order.length; start += opts.batchSize) {
      const end = Math.min(order.length, start + opts.batchSize);
      let nSlots = 0;
      let bw = 0;
      for (let k = start; k < end; k++) {
        const g = order[k] as number;
        const r = maxRow(groups, g, logit);
        const a = csr.offsets[r] as number;
        const e = csr.offsets[r + 1] as number;
        // forward (with feature dropout: dropped features get value 0 for this pass)
        if (e - a > kept.length) kept = new Float32Array(2 * (e - a));
        for (let j = a; j < e; j++)
          kept[j - a] =
            dropout > 0 ? (rng() < dropout ? 0 : (csr.values[j] as number) * keepScale) : (csr.values[j] as number);
        for (let d = 0; d < D; d++) s[d] = b0[d] as number;
        for (let j = a; j < e; j++) {
          const val = kept[j - a] as number;
          if (val === 0) continue;
          const base = (csr.ids[j] as number) * D;
          for (let d = 0; d < D; d++) s[d] = (s[d] as number) + val * (emb[base + d] as number);
        }
        for (let c = 0; c < C; c++) z[c] = b[c] as number;
        for (let d = 0; d < D; d++) {
          const h = s[d] as number;
          if (h <= 0) continue;
          for (let c = 0; c < C; c++) z[c] = (z[c] as number) + h * (w[d * C + c] as number);
        }
        const y = labels[g] as number;
        const sw = sampleWeights[g] as number;
        bw += sw;
        wSum += sw;
        if (C === 1) {
          const p = 1 / (1 + Math.exp(-(z[0] as number)));
          lossSum += -sw * (y === 1 ? Math.log(p + 1e-12) : Math.log(1 - p + 1e-12));
          dz[0] = (p - y) * sw;
        } else {
          let mx = -Infinity;
          for (let c = 0; c < C; c++) mx = Math.max(mx, z[c] as number);
          let sum = 0;
          for (let c = 0; c < C; c++) {
            const ex = Math.exp((z[c] as number) - mx);
            z[c] = ex;
            sum += ex;
          }
          for (let c = 0; c < C; c++) {
            const p = (z[c] as number) / sum;
            if (c === y) lossSum += -sw * Math.log(p + 1e-12);
            dz[c] = (p - (c === y ? 1 : 0)) * sw;
          }
        }
        // backward
        for (let c = 0; c < C; c++) gb[c] = (gb[c] as number) + (dz[c] as number);
        for (let d = 0; d < D; d++) {
          const h = s[d] as number;
          if (h <= 0) {
            ds[d] = 0;
            continue;
          }
          let dh = 0;
          for (let c = 0; c < C; c++) {
            const g = dz[c] as number;
            gw[d * C + c] = (gw[d * C + c] as number) + h * g;
            dh += (w[d * C + c] as number) * g;
          }
          ds[d] = dh;
          gb0[d] = (gb0[d] as number) + dh;
        }
        for (let j = a; j < e; j++) {
          const val = kept[j - a] as number;
          if (val === 0) continue;
          const id = csr.ids[j] as number;
          let slot = slotOf[id] as number;
          if (slot < 0) {
            if (nSlots === slotRows.length) {
              const r2 = new Int32Array(slotRows.length * 2);
              r2.set(slotRows);
              slotRows = r2;
              const g2 = new Float32Array(slotRows.length * D);
              g2.set(gE);
              gE = g2;
            }
            slot = nSlots++;
            slotOf[id] = slot;
            slotRows[slot] = id;
            gE.fill(0, slot * D, slot * D + D);
          }
          const gbase = slot * D;
          for (let d = 0; d < D; d++) gE[gbase + d] = (gE[gbase + d] as number) + val * (ds[d] as number);
        }
      }
      // Adam updates
      step++;
      const c1 = 1 - B1 ** step;
      const c2 = 1 - B2 ** step;
      const stepSize = lr / c1;
      const inv = 1 / bw;
      for (let t = 0; t < nSlots; t++) {
        const id = slotRows[t] as number;
        slotOf[id] = -1;
        const base = id * D;
        const gbase = t * D;
        for (let d = 0; d < D; d++) {
          const pi = base + d;
          const g = (gE[gbase + d] as number) * inv + opts.l2 * (emb[pi] as number);
          const mi = B1 * (mE[pi] as number) + (1 - B1) * g;
          const vi = B2 * (vE[pi] as number) + (1 - B2) * g * g;
          mE[pi] = mi;
          vE[pi] = vi;
          emb[pi] = (emb[pi] as number) - (stepSize * mi) / (Math.sqrt(vi / c2) + EPS);
        }
      }
      for (let q = 0; q < dense.length; q++) {
        const P = dense[q] as Float32Array;
        const G = gD[q] as Float32Array;
        const M = mD[q] as Float32Array;
        const V = vD[q] as Float32Array;
        const decay = q === 1 ? opts.l2 : 0;
        for (let i = 0; i < P.length; i++) {
          const g = (G[i] as number) * inv + decay * (P[i] as number);
          const mi = B1 * (M[i] as number) + (1 - B1) * g;
          const vi = B2 * (V[i] as number) + (1 - B2) * g * g;
          M[i] = mi;
          V[i] = vi;
          P[i] = (P[i] as number) - (stepSize * mi) / (Math.sqrt(vi / c2) + EPS);
          G[i] = 0;
        }
      }
    }
    opts.log?.(
      `epoch ${epoch + 1}/${opts.epochs} loss ${(lossSum / wSum).toFixed(4)} lr ${lr.toExponential(2)} (${((Date.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  return { buckets: B, dim: D, classes: C, emb, b0, w, b };
}
