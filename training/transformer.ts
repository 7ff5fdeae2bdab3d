/**
 * The small encoder-only transformer behind `pi-accurate` (`transformer-encoder-v1`): its shape and
 * the named parameter layout shared by the TensorFlow.js trainer (`train/transformer-tf.ts`), the
 * ONNX exporter (`onnx-io.ts`) and the parity test. No TensorFlow.js import here: serving needs none.
 *
 * Math (pre-LayerNorm blocks, mask from pad id 0):
 *   x = tok_emb[ids] + pos_emb[0:T]
 *   per block: x += Wo·Attention(LN1(x)) ; x += W2·relu(W1·LN2(x) + b1) + b2
 *   Attention: one fused Wqkv projection, H heads, q scaled by 1/sqrt(D/H) before q·kᵀ, key padding
 *   masked with an additive -1e9, softmax over keys.
 *   h = LN_f(x); pooled = sum_t mask_t·h_t / sum_t mask_t; score = sigmoid(pooled·w + b)
 * LayerNorm: biased variance, epsilon {@link LN_EPS}.
 */

export interface TransformerConfig {
  type: 'transformer-encoder-v1';
  vocab_size: number;
  max_tokens: number;
  d_model: number;
  heads: number;
  ffn: number;
  blocks: number;
  activation: 'relu';
  pooling: 'masked-mean';
  layer_norm_epsilon: number;
  pad_id: 0;
}

export const LN_EPS = 1e-5;
/** Additive attention bias on padded keys. */
export const MASK_NEG = -1e9;

/** A named parameter: row-major float32 data with its shape. */
export interface Param {
  shape: number[];
  data: Float32Array;
}
export type TransformerParams = Map<string, Param>;

/** Parameter names and shapes, in a fixed order (checkpoints and exports rely on it). */
export function paramShapes(c: TransformerConfig): [string, number[]][] {
  const { vocab_size: V, max_tokens: T, d_model: D, ffn: F } = c;
  const out: [string, number[]][] = [
    ['tok_emb', [V, D]],
    ['pos_emb', [T, D]],
  ];
  for (let i = 0; i < c.blocks; i++) {
    out.push(
      [`b${i}.ln1.g`, [D]],
      [`b${i}.ln1.b`, [D]],
      [`b${i}.wqkv`, [D, 3 * D]],
      [`b${i}.bqkv`, [3 * D]],
      [`b${i}.wo`, [D, D]],
      [`b${i}.bo`, [D]],
      [`b${i}.ln2.g`, [D]],
      [`b${i}.ln2.b`, [D]],
      [`b${i}.w1`, [D, F]],
      [`b${i}.b1`, [F]],
      [`b${i}.w2`, [F, D]],
      [`b${i}.b2`, [D]],
    );
  }
  out.push(['ln_f.g', [D]], ['ln_f.b', [D]], ['head.w', [D, 1]], ['head.b', [1]]);
  return out;
}

export function parameterCount(c: TransformerConfig): number {
  return paramShapes(c).reduce((a, [, s]) => a + s.reduce((x, y) => x * y, 1), 0);
}

export function transformerConfig(
  p: Omit<TransformerConfig, 'type' | 'activation' | 'pooling' | 'layer_norm_epsilon' | 'pad_id'>,
): TransformerConfig {
  if (p.d_model % p.heads !== 0) throw new Error('d_model must be a multiple of heads');
  return {
    type: 'transformer-encoder-v1',
    ...p,
    activation: 'relu',
    pooling: 'masked-mean',
    layer_norm_epsilon: LN_EPS,
    pad_id: 0,
  };
}
