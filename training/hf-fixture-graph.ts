/**
 * A tiny random-weight encoder with the inputs and outputs of a Hugging Face export (test fixtures
 * and benchmark graphs for inference/hf-classifier.ts), written with inference/onnx-writer.ts, opset 17:
 *
 *   inputs  input_ids, attention_mask [N, T] int64 (+ token_type_ids for BERT)
 *   x = LayerNorm(word_emb[ids] + position (+ token type))
 *       BERT: absolute positions 0..T-1; RoBERTa: positions counted over non-padding tokens from
 *       padding_idx + 1 (HF's create_position_ids_from_input_ids; 514 positions hold 512 tokens);
 *       DeBERTa-v2: no absolute positions — a learned relative-position bias per head on the attention
 *       logits (distance clipped to ±16), a simplification of DeBERTa's disentangled attention
 *   per layer (post-LN, as BERT): x = LN(x + Attention(x)), x = LN(x + W2·GELU(W1·x)); attention
 *       logits get −1e9 where attention_mask is 0, so padding changes nothing
 *   output  logits [N, C] (text: Tanh pooler on the first token, then a linear head) or [N, T, C]
 *
 * Weights are uniform with standard deviation 0.02 from a seeded PRNG (BERT's init scale). `int8`
 * quantises the layers' matrices per output column (symmetric) and runs them as onnxruntime's
 * dynamic quantisation does: DynamicQuantizeLinear on the activations, MatMulInteger, rescale.
 *
 * `planted` makes the output depend on the input in a known way, through the network itself: hidden
 * dimension 0 carries "trigger present" (the trigger tokens' embeddings are high there, all others
 * low; head 0 of every layer attends to the highest value of it and copies it everywhere) and
 * dimension 1 carries "this token is the name"; no other weight reads or writes these two dimensions.
 * The text head maps dimension 0 of the first token onto the positive labels, the token head maps
 * dimension 1 of each token onto the name label.
 */
import { DataType, encodeOnnxModel, f32Raw, i64Raw, type AttrValue, type OnnxGraph } from '../inference/onnx-writer.ts';
import { quantizeInt8 } from './onnx-io.ts';
import { mulberry32, type Rng } from './prng.ts';

const INT8 = 3;

/** The shape, weights and planted behaviour of a fixture encoder. */
export interface EncoderSpec {
  arch: 'bert' | 'deberta-v2' | 'roberta';
  task: 'text-classification' | 'token-classification';
  vocabSize: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  /** position table rows (RoBERTa: max tokens + 2) */
  maxPositions: number;
  /** output width: the labels, or 1 for a single-logit text model */
  outputs: number;
  padId: number;
  seed: number;
  precision: 'fp32' | 'int8';
  planted?: {
    trigger: number[];
    name: number[];
    /** text: output columns the trigger raises (the others it lowers) */
    positive: number[];
    /** token: the label the name's tokens get, and the one every other token gets */
    nameLabel: number;
    outside: number;
  };
}

const STD = 0.02;
const REL_CLIP = 16;

function uniform(rng: Rng, n: number): Float32Array {
  const a = STD * Math.sqrt(3);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (rng() * 2 - 1) * a;
  return out;
}

/** Zeroes rows `rows` and columns `cols` of a row-major [R, C] matrix. */
function clear(m: Float32Array, C: number, rows: number[], cols: number[]): Float32Array {
  for (const r of rows) m.fill(0, r * C, (r + 1) * C);
  for (let r = 0; r < m.length / C; r++) for (const c of cols) m[r * C + c] = 0;
  return m;
}

class Builder {
  readonly g: OnnxGraph = { name: 'encoder', nodes: [], initializers: [], inputs: [], outputs: [] };
  private n = 0;

  constructor(private readonly int8: boolean) {}

  op(op: string, inputs: string[], attrs?: Record<string, AttrValue>, outputs = 1): string[] {
    const outs = Array.from({ length: outputs }, () => `${op.toLowerCase()}_${this.n++}`);
    this.g.nodes.push({ op, inputs, outputs: outs, attrs });
    return outs;
  }

  one(op: string, inputs: string[], attrs?: Record<string, AttrValue>): string {
    return this.op(op, inputs, attrs)[0] as string;
  }

  f32(name: string, dims: number[], data: Float32Array): string {
    this.g.initializers.push({ name, dims, dataType: DataType.FLOAT, raw: f32Raw(data) });
    return name;
  }

  i64(name: string, dims: number[], values: number[]): string {
    this.g.initializers.push({ name, dims, dataType: DataType.INT64, raw: i64Raw(values) });
    return name;
  }

  /** x · W for W [rows, cols]: a MatMul, or the dynamic-quantisation path in int8. */
  matmul(x: string, name: string, w: Float32Array, rows: number, cols: number): string {
    if (!this.int8) return this.one('MatMul', [x, this.f32(name, [rows, cols], w)]);
    const { q, scale } = quantizeInt8(w, rows, cols, 1);
    const raw = new Uint8Array(q.buffer, q.byteOffset, q.byteLength);
    this.g.initializers.push({ name: `${name}.q`, dims: [rows, cols], dataType: INT8, raw });
    this.f32(`${name}.scale`, [cols], scale);
    const [xq, xs, xz] = this.op('DynamicQuantizeLinear', [x], undefined, 3) as [string, string, string];
    const acc = this.one('MatMulInteger', [xq, `${name}.q`, xz]);
    const f = this.one('Cast', [acc], { to: { kind: 'int', value: DataType.FLOAT } });
    return this.one('Mul', [f, this.one('Mul', [xs, `${name}.scale`])]);
  }

  layerNorm(x: string, name: string, D: number): string {
    const g = this.f32(`${name}.g`, [D], new Float32Array(D).fill(1));
    const b = this.f32(`${name}.b`, [D], new Float32Array(D));
    return this.one('LayerNormalization', [x, g, b], {
      axis: { kind: 'int', value: -1 },
      epsilon: { kind: 'float', value: 1e-12 },
    });
  }
}

/** The encoder as ONNX bytes. @throws when hidden is not a multiple of heads */
export function encoderOnnx(spec: EncoderSpec): Uint8Array {
  const { hidden: D, heads: H, intermediate: I, vocabSize: V, outputs: C } = spec;
  if (D % H !== 0) throw new Error(`hidden ${D} is not a multiple of heads ${H}`);
  const dh = D / H;
  const rng = mulberry32(spec.seed);
  const p = spec.planted;
  const fixed = p ? [0, 1] : [];
  const b = new Builder(spec.precision === 'int8');
  const ids = 'input_ids';
  b.g.inputs.push(
    { name: ids, elemType: DataType.INT64, dims: ['N', 'T'] },
    { name: 'attention_mask', elemType: DataType.INT64, dims: ['N', 'T'] },
  );
  if (spec.arch === 'bert') b.g.inputs.push({ name: 'token_type_ids', elemType: DataType.INT64, dims: ['N', 'T'] });
  b.i64('axes_0', [1], [0]);
  b.i64('axes_1', [1], [1]);
  b.i64('axes_12', [2], [1, 2]);
  b.i64('zero_s', [], [0]);
  b.i64('one_s', [], [1]);
  b.f32('one', [], Float32Array.of(1));
  b.f32('half', [], Float32Array.of(0.5));
  b.f32('sqrt2', [], Float32Array.of(Math.SQRT2));
  b.f32('mask_neg', [], Float32Array.of(-1e9));
  b.f32('q_scale', [], Float32Array.of(1 / Math.sqrt(dh)));
  b.i64('qkv_shape', [4], [0, 0, 3 * H, dh]);
  b.i64('ctx_shape', [3], [0, 0, D]);
  b.i64('split_h', [3], [H, H, H]);
  const ints = (value: number[]): AttrValue => ({ kind: 'ints', value });
  const int = (value: number): AttrValue => ({ kind: 'int', value });

  // embeddings
  const word = uniform(rng, V * D);
  if (p) {
    for (let v = 0; v < V; v++) word[v * D] = word[v * D + 1] = -0.1;
    for (const t of p.trigger) word[t * D] = 1;
    for (const t of p.name) word[t * D + 1] = 1;
  }
  let x = b.one('Gather', [b.f32('word_emb', [V, D], word), ids], { axis: int(0) });
  const shape = b.one('Shape', [ids]);
  if (spec.arch === 'bert' || spec.arch === 'roberta') {
    const pos = b.f32('pos_emb', [spec.maxPositions, D], clear(uniform(rng, spec.maxPositions * D), D, [], fixed));
    let posRows: string;
    if (spec.arch === 'bert') {
      const T = b.one('Gather', [shape, 'axes_1'], { axis: int(0) });
      posRows = b.one('Slice', [pos, 'axes_0', T, 'axes_0']);
    } else {
      // RoBERTa: position = padding_idx + (running count of non-padding tokens), padding keeps padding_idx
      const pad = b.i64('pad_id', [], [spec.padId]);
      const real = b.one('Cast', [b.one('Not', [b.one('Equal', [ids, pad])])], { to: int(DataType.INT64) });
      const count = b.one('CumSum', [real, 'one_s']);
      posRows = b.one('Gather', [pos, b.one('Add', [b.one('Mul', [count, real]), pad])], { axis: int(0) });
    }
    x = b.one('Add', [x, posRows]);
    if (spec.arch === 'bert') {
      const types = b.f32('type_emb', [2, D], clear(uniform(rng, 2 * D), D, [], fixed));
      x = b.one('Add', [x, b.one('Gather', [types, 'token_type_ids'], { axis: int(0) })]);
    }
  }
  x = b.layerNorm(x, 'emb_ln', D);

  // attention bias: −1e9 on padding keys (+ DeBERTa's relative positions)
  const maskF = b.one('Cast', ['attention_mask'], { to: int(DataType.FLOAT) });
  let bias = b.one('Unsqueeze', [b.one('Mul', [b.one('Sub', ['one', maskF]), 'mask_neg']), 'axes_12']);
  if (spec.arch === 'deberta-v2') {
    const T = b.one('Gather', [shape, 'one_s'], { axis: int(0) });
    const r = b.one('Range', ['zero_s', T, 'one_s']);
    const d = b.one('Sub', [b.one('Unsqueeze', [r, 'axes_0']), b.one('Unsqueeze', [r, 'axes_1'])]);
    const k = b.i64('rel_k', [], [REL_CLIP]);
    const clipped = b.one('Min', [b.one('Max', [d, b.i64('rel_neg_k', [], [-REL_CLIP])]), k]);
    const table = uniform(rng, (2 * REL_CLIP + 1) * H).map((v) => v * 25); // std 0.5
    if (p) for (let i = 0; i <= 2 * REL_CLIP; i++) table[i * H] = 0; // head 0 is the planted one
    const rel = b.one('Gather', [b.f32('rel_bias', [2 * REL_CLIP + 1, H], table), b.one('Add', [clipped, k])], {
      axis: int(0),
    });
    bias = b.one('Add', [bias, b.one('Transpose', [rel], { perm: ints([2, 0, 1]) })]);
  }

  for (let l = 0; l < spec.layers; l++) {
    const n = `l${l}`;
    const wqkv = clear(uniform(rng, D * 3 * D), 3 * D, fixed, []);
    const bqkv = new Float32Array(3 * D);
    const wo = clear(uniform(rng, D * D), D, [], fixed);
    if (p) {
      bqkv[0] = 3 * Math.sqrt(dh); // head 0's query is constant: every token looks for the highest key
      wqkv[D] = 1; // head 0's key: dimension 0
      wqkv[2 * D] = 1; // head 0's value: dimension 0
      wo[0] = 2; // back into dimension 0
    }
    const qkv = b.one('Add', [b.matmul(x, `${n}.wqkv`, wqkv, D, 3 * D), b.f32(`${n}.bqkv`, [3 * D], bqkv)]);
    const heads = b.one('Transpose', [b.one('Reshape', [qkv, 'qkv_shape'])], { perm: ints([0, 2, 1, 3]) });
    const [q, kk, v] = b.op('Split', [heads, 'split_h'], { axis: int(1) }, 3) as [string, string, string];
    const kT = b.one('Transpose', [kk], { perm: ints([0, 1, 3, 2]) });
    const logits = b.one('Add', [b.one('MatMul', [b.one('Mul', [q, 'q_scale']), kT]), bias]);
    const att = b.one('Softmax', [logits], { axis: int(-1) });
    const ctx4 = b.one('Transpose', [b.one('MatMul', [att, v])], { perm: ints([0, 2, 1, 3]) });
    const ctx = b.one('Reshape', [ctx4, 'ctx_shape']);
    const o = b.one('Add', [b.matmul(ctx, `${n}.wo`, wo, D, D), b.f32(`${n}.bo`, [D], new Float32Array(D))]);
    x = b.layerNorm(b.one('Add', [x, o]), `${n}.ln1`, D);
    const w1 = clear(uniform(rng, D * I), I, fixed, []);
    const f1 = b.one('Add', [b.matmul(x, `${n}.w1`, w1, D, I), b.f32(`${n}.b1`, [I], new Float32Array(I))]);
    const erf = b.one('Erf', [b.one('Div', [f1, 'sqrt2'])]);
    const gelu = b.one('Mul', [b.one('Mul', [f1, 'half']), b.one('Add', [erf, 'one'])]);
    const w2 = clear(uniform(rng, I * D), D, [], fixed);
    const f2 = b.one('Add', [b.matmul(gelu, `${n}.w2`, w2, I, D), b.f32(`${n}.b2`, [D], new Float32Array(D))]);
    x = b.layerNorm(b.one('Add', [x, f2]), `${n}.ln2`, D);
  }

  let out: string;
  if (spec.task === 'text-classification') {
    const first = b.one('Gather', [x, 'zero_s'], { axis: int(1) });
    const wp = clear(uniform(rng, D * D), D, fixed, fixed);
    const wc = clear(uniform(rng, D * C), C, fixed, []);
    if (p) {
      wp[0] = 1;
      // ±1.2 per label: about 0.92 / 0.08 for two labels (one logit: 2.4, the same odds)
      for (let c = 0; c < C; c++) wc[c] = C === 1 ? 2.4 : p.positive.includes(c) ? 1.2 : -1.2;
    }
    const pooled = b.one('Tanh', [b.one('Add', [b.one('MatMul', [first, b.f32('pool.w', [D, D], wp)]), b.f32('pool.b', [D], new Float32Array(D))])]); // prettier-ignore
    out = b.one('Add', [b.one('MatMul', [pooled, b.f32('cls.w', [D, C], wc)]), b.f32('cls.b', [C], new Float32Array(C))]); // prettier-ignore
  } else {
    const wc = clear(uniform(rng, D * C), C, fixed, []);
    if (p) {
      wc[C + p.nameLabel] = 3;
      wc[C + p.outside] = -3;
    }
    out = b.one('Add', [b.one('MatMul', [x, b.f32('cls.w', [D, C], wc)]), b.f32('cls.b', [C], new Float32Array(C))]);
  }
  b.g.nodes.push({ op: 'Identity', inputs: [out], outputs: ['logits'] });
  // constants only some architectures use are dropped (onnxruntime warns about unused initializers)
  const used = new Set(b.g.nodes.flatMap((node) => node.inputs));
  b.g.initializers = b.g.initializers.filter((t) => used.has(t.name));
  b.g.outputs.push({
    name: 'logits',
    elemType: DataType.FLOAT,
    dims: spec.task === 'text-classification' ? ['N', C] : ['N', 'T', C],
  });
  return encodeOnnxModel(b.g, {
    producer: 'content-firewall/hf-fixtures',
    producerVersion: '1',
    opset: 17,
    props: { arch: spec.arch, task: spec.task, precision: spec.precision, seed: String(spec.seed) },
  });
}
