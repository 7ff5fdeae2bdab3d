/**
 * The `transformer-encoder-v1` forward pass in TensorFlow.js (training and the parity test; see
 * `training/transformer.ts` for the math). Backend: wasm (SIMD) — it lacks the gradient kernel of
 * Gather (UnsortedSegmentSum), so the embedding lookup has a custom gradient built on scatterND.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { gaussian, mulberry32 } from '../prng.ts';
import { LN_EPS, MASK_NEG, paramShapes, type TransformerConfig, type TransformerParams } from '../transformer.ts';

export { tf };

let backendReady: Promise<void> | undefined;
/** Selects the wasm backend (once); `cpu` for tests that want the reference kernels. */
export function useBackend(name: 'wasm' | 'cpu' = 'wasm'): Promise<void> {
  if (name === 'cpu') return tf.setBackend('cpu').then(() => undefined);
  backendReady ??= (async () => {
    if (!(await tf.setBackend('wasm'))) throw new Error('tfjs wasm backend failed to initialise');
    await tf.ready();
  })();
  return backendReady;
}

export type Vars = Map<string, tf.Variable>;

/** Seeded initialisation: N(0, 0.02) matrices and embeddings, zero biases, unit LayerNorm gains. */
export function initParams(c: TransformerConfig, seed: number): TransformerParams {
  const rng = mulberry32(seed);
  const params: TransformerParams = new Map();
  for (const [name, shape] of paramShapes(c)) {
    const n = shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    if (name.endsWith('.g')) data.fill(1);
    else if (shape.length === 2) {
      // residual output projections scaled down with depth (GPT-2)
      const std = name.endsWith('.wo') || name.endsWith('.w2') ? 0.02 / Math.sqrt(2 * c.blocks) : 0.02;
      for (let i = 0; i < n; i++) data[i] = gaussian(rng) * std;
    }
    params.set(name, { shape, data });
  }
  return params;
}

export function toVars(params: TransformerParams, trainable = true): Vars {
  const vars: Vars = new Map();
  for (const [name, p] of params) vars.set(name, tf.variable(tf.tensor(p.data, p.shape, 'float32'), trainable, name));
  return vars;
}

export async function fromVars(vars: Vars): Promise<TransformerParams> {
  const out: TransformerParams = new Map();
  for (const [name, v] of vars) out.set(name, { shape: v.shape.slice(), data: (await v.data()) as Float32Array });
  return out;
}

/** Embedding lookup whose gradient is a scatterND (sums repeated ids). */
function embed(table: tf.Tensor2D, ids: tf.Tensor2D): tf.Tensor3D {
  const [N, T] = ids.shape;
  const [V, D] = table.shape;
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const tbl = args[0] as tf.Tensor;
    return {
      value: tf.gather(tbl as tf.Tensor2D, ids.reshape([N * T])).reshape([N, T, D]),
      gradFunc: (dy: tf.Tensor) => tf.scatterND(ids.reshape([N * T, 1]), dy.reshape([N * T, D]), [V, D]),
    };
  });
  return f(table) as tf.Tensor3D;
}

/**
 * x [M, K] @ w [K, N] with explicit transposes in the gradient: the wasm backend's transposed
 * BatchMatMul is ~8x slower than a Transpose followed by a plain one.
 */
function linear(x: tf.Tensor, w: tf.Tensor): tf.Tensor2D {
  const f = tf.customGrad((...args: (tf.Tensor | tf.GradSaveFunc)[]) => {
    const [a, b, save] = args as [tf.Tensor, tf.Tensor, tf.GradSaveFunc];
    save([a, b]);
    return {
      value: tf.matMul(a as tf.Tensor2D, b as tf.Tensor2D),
      gradFunc: (dy: tf.Tensor, saved: tf.Tensor[]) => {
        const [sa, sb] = saved as [tf.Tensor2D, tf.Tensor2D];
        return [tf.matMul(dy as tf.Tensor2D, sb.transpose()), tf.matMul(sa.transpose(), dy as tf.Tensor2D)];
      },
    };
  });
  return f(x, w) as tf.Tensor2D;
}

function layerNorm(x: tf.Tensor, g: tf.Tensor, b: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  return x.sub(mean).div(variance.add(LN_EPS).sqrt()).mul(g).add(b);
}

/**
 * Logits [N] for ids [N, T] (int32, 0 = padding). Call inside tf.tidy / variableGrads. `dropout`
 * (training only): that rate on the embeddings and on each residual branch, seeded per call site.
 */
export function forwardLogits(
  c: TransformerConfig,
  vars: Vars,
  ids: tf.Tensor2D,
  dropout?: { rate: number; seed: number },
): tf.Tensor1D {
  let site = 0;
  const drop = <R extends tf.Tensor>(t: R): R =>
    dropout && dropout.rate > 0 ? (tf.dropout(t, dropout.rate, undefined, dropout.seed * 16 + site++) as R) : t;
  const [N, T] = ids.shape;
  const D = c.d_model;
  const H = c.heads;
  const dh = D / H;
  const v = (n: string): tf.Tensor => {
    const t = vars.get(n);
    if (!t) throw new Error(`missing parameter ${n}`);
    return t;
  };
  const mask = ids.notEqual(0).toFloat(); // [N, T]
  const bias = tf.sub(1, mask).mul(MASK_NEG).reshape([N, 1, 1, T]);
  let x = drop(embed(v('tok_emb') as tf.Tensor2D, ids).add(v('pos_emb').slice([0, 0], [T, D])) as tf.Tensor3D);
  const scale = 1 / Math.sqrt(dh);
  for (let i = 0; i < c.blocks; i++) {
    const p = (n: string): tf.Tensor => v(`b${i}.${n}`);
    const h = layerNorm(x, p('ln1.g'), p('ln1.b')).reshape([N * T, D]);
    const qkv = linear(h, p('wqkv'))
      .add(p('bqkv'))
      .reshape([N, T, 3 * H, dh])
      .transpose([0, 2, 1, 3]);
    const [q, k, val] = tf.split(qkv, 3, 1) as [tf.Tensor4D, tf.Tensor4D, tf.Tensor4D];
    const att = tf.softmax(tf.matMul(q.mul(scale) as tf.Tensor4D, k, false, true).add(bias), -1);
    const ctx = tf
      .matMul(att as tf.Tensor4D, val)
      .transpose([0, 2, 1, 3])
      .reshape([N * T, D]);
    x = x.add(drop(linear(ctx, p('wo')).add(p('bo')).reshape([N, T, D])));
    const h2 = layerNorm(x, p('ln2.g'), p('ln2.b')).reshape([N * T, D]);
    const ff = linear(tf.relu(linear(h2, p('w1')).add(p('b1'))), p('w2')).add(p('b2'));
    x = x.add(drop(ff.reshape([N, T, D])));
  }
  const hf = layerNorm(x, v('ln_f.g'), v('ln_f.b'));
  const m3 = mask.reshape([N, T, 1]);
  const pooled = hf.mul(m3).sum(1).div(m3.sum(1)); // [N, D]
  return tf
    .matMul(pooled as tf.Tensor2D, v('head.w') as tf.Tensor2D)
    .add(v('head.b'))
    .reshape([N]);
}

/** ids rows (each ≤ T) -> padded int32 tensor [N, maxLen] (padding with 0 at the end). */
export function padBatch(rows: readonly (readonly number[])[], minLen = 1): tf.Tensor2D {
  const L = Math.max(minLen, ...rows.map((r) => r.length));
  const buf = new Int32Array(rows.length * L);
  rows.forEach((r, i) => buf.set(r, i * L));
  return tf.tensor2d(buf, [rows.length, L], 'int32');
}

/** Scores (sigmoid) for rows of ids, without gradients. */
export async function predictRows(
  c: TransformerConfig,
  vars: Vars,
  rows: readonly (readonly number[])[],
): Promise<Float32Array> {
  const out = tf.tidy(() => tf.sigmoid(forwardLogits(c, vars, padBatch(rows))));
  const data = (await out.data()) as Float32Array;
  out.dispose();
  return data;
}
