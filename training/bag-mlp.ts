/**
 * Embedding-bag MLP: the math of the ONNX graphs exported by `onnx-io.ts`, in plain TypeScript
 * (used by training, and by tests to check onnxruntime against it).
 *
 *   e[n]  = sum_l values[n,l] * E[ids[n,l]]          (E: [buckets, dim]; padding = value 0)
 *   h[n]  = relu(e[n] + b0)                          (dim)
 *   z[n]  = h[n] @ W + b                             (W: [dim, classes])
 *   out   = sigmoid(z[n,0])  (classes = 1, output `scores` [N])
 *         | softmax(z[n])    (classes > 1, output `probs` [N, classes])
 */

export interface BagMlpParams {
  buckets: number;
  dim: number;
  /** 1 = binary (sigmoid), > 1 = softmax over classes. */
  classes: number;
  emb: Float32Array;
  b0: Float32Array;
  w: Float32Array;
  b: Float32Array;
}

/**
 * Forward pass over `rows` rows of `rowLen` (ids, values) pairs. Returns scores [rows] for binary
 * models, probabilities [rows * classes] otherwise.
 */
export function bagMlpForward(
  p: BagMlpParams,
  ids: ArrayLike<number>,
  values: ArrayLike<number>,
  rows: number,
  rowLen: number,
): Float32Array {
  const D = p.dim;
  const C = p.classes;
  const out = new Float32Array(rows * C);
  const s = new Float64Array(D);
  const z = new Float64Array(C);
  for (let n = 0; n < rows; n++) {
    s.fill(0);
    const base = n * rowLen;
    for (let l = 0; l < rowLen; l++) {
      const v = values[base + l] as number;
      if (v === 0) continue;
      const e = (ids[base + l] as number) * D;
      for (let d = 0; d < D; d++) s[d] = (s[d] as number) + v * (p.emb[e + d] as number);
    }
    for (let c = 0; c < C; c++) z[c] = p.b[c] as number;
    for (let d = 0; d < D; d++) {
      const h = (s[d] as number) + (p.b0[d] as number);
      if (h <= 0) continue;
      for (let c = 0; c < C; c++) z[c] = (z[c] as number) + h * (p.w[d * C + c] as number);
    }
    if (C === 1) out[n] = 1 / (1 + Math.exp(-(z[0] as number)));
    else {
      let m = -Infinity;
      for (let c = 0; c < C; c++) m = Math.max(m, z[c] as number);
      let sum = 0;
      for (let c = 0; c < C; c++) {
        const e = Math.exp((z[c] as number) - m);
        z[c] = e;
        sum += e;
      }
      for (let c = 0; c < C; c++) out[n * C + c] = (z[c] as number) / sum;
    }
  }
  return out;
}
