/**
 * Writing (and reading back) the models as ONNX graphs, built by hand with `onnx-proto` (a dev
 * dependency: training and tests only; serving uses onnxruntime-node): embedding-bag MLPs and the
 * small transformer encoder (`transformer-encoder-v1`, see the graph at {@link exportTransformerOnnx}).
 *
 * Embedding-bag MLP
 * Graph (opset 13, IR version 8), inputs `ids` int64 [N, L] and `weights` float32 [N, L]:
 *   Gather(E, ids) -> Mul(·, Unsqueeze(weights, [2])) -> ReduceSum(axes [1], keepdims 0)
 *   -> Add(b0) -> Relu -> MatMul(W) -> Add(b) -> Sigmoid -> `scores` [N]        (binary)
 *                                              -> Softmax(axis -1) -> `probs` [N, C]  (classes > 1)
 */
import onnxProto from 'onnx-proto';
import type { BagMlpParams } from './bag-mlp.ts';
import { MASK_NEG, paramShapes, type TransformerConfig, type TransformerParams } from './transformer.ts';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const INT8 = onnx.TensorProto.DataType.INT8;

function f32Tensor(name: string, dims: number[], data: Float32Array): onnxProto.onnx.ITensorProto {
  const bytes = new Uint8Array(data.length * 4);
  const dv = new DataView(bytes.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat32(i * 4, data[i] as number, true);
  return { name, dims, dataType: FLOAT, rawData: bytes };
}

function i64Tensor(name: string, dims: number[], data: number[]): onnxProto.onnx.ITensorProto {
  const bytes = new Uint8Array(data.length * 8);
  const dv = new DataView(bytes.buffer);
  for (let i = 0; i < data.length; i++) dv.setBigInt64(i * 8, BigInt(data[i] as number), true);
  return { name, dims, dataType: INT64, rawData: bytes };
}

function valueInfo(name: string, elemType: number, dims: (string | number)[]): onnxProto.onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

function node(
  opType: string,
  input: string[],
  output: string[],
  attrs: onnxProto.onnx.IAttributeProto[] = [],
): onnxProto.onnx.INodeProto {
  return { opType, input, output, name: output[0] ?? opType, attribute: attrs };
}

const INT = onnx.AttributeProto.AttributeType.INT;
const FLOAT_ATTR = onnx.AttributeProto.AttributeType.FLOAT;
const INTS = onnx.AttributeProto.AttributeType.INTS;

export interface OnnxExportMeta {
  modelId: string;
  version: string;
  docString?: string;
}

export function exportBagMlpOnnx(p: BagMlpParams, meta: OnnxExportMeta): Uint8Array {
  const binary = p.classes === 1;
  const nodes: onnxProto.onnx.INodeProto[] = [
    node('Gather', ['embedding', 'ids'], ['emb'], [{ name: 'axis', type: INT, i: 0 }]),
    node('Unsqueeze', ['weights', 'axes_2'], ['weights_3d']),
    node('Mul', ['emb', 'weights_3d'], ['weighted']),
    node('ReduceSum', ['weighted', 'axes_1'], ['bag'], [{ name: 'keepdims', type: INT, i: 0 }]),
    node('Add', ['bag', 'hidden_bias'], ['pre']),
    node('Relu', ['pre'], ['hidden']),
    node('MatMul', ['hidden', 'out_weight'], ['logits_raw']),
    node('Add', ['logits_raw', 'out_bias'], ['logits']),
    binary
      ? node('Sigmoid', ['logits'], ['scores'])
      : node('Softmax', ['logits'], ['probs'], [{ name: 'axis', type: INT, i: -1 }]),
  ];
  const initializer = [
    f32Tensor('embedding', [p.buckets, p.dim], p.emb),
    f32Tensor('hidden_bias', [p.dim], p.b0),
    binary ? f32Tensor('out_weight', [p.dim], p.w) : f32Tensor('out_weight', [p.dim, p.classes], p.w),
    f32Tensor('out_bias', [p.classes], p.b),
    i64Tensor('axes_1', [1], [1]),
    i64Tensor('axes_2', [1], [2]),
  ];
  return encodeModel(meta, 13, {
    node: nodes,
    initializer,
    input: [valueInfo('ids', INT64, ['N', 'L']), valueInfo('weights', FLOAT, ['N', 'L'])],
    output: [binary ? valueInfo('scores', FLOAT, ['N']) : valueInfo('probs', FLOAT, ['N', p.classes])],
  });
}

/** Wraps a graph in an IR 8 ModelProto (producer and id/version metadata), verifies and encodes it. */
function encodeModel(
  meta: OnnxExportMeta,
  opset: number,
  graph: Omit<onnxProto.onnx.IGraphProto, 'name'>,
  extraProps: onnxProto.onnx.IStringStringEntryProto[] = [],
): Uint8Array {
  const model: onnxProto.onnx.IModelProto = {
    irVersion: 8,
    opsetImport: [{ domain: '', version: opset }],
    producerName: 'content-firewall/models',
    producerVersion: meta.version,
    docString: meta.docString ?? '',
    metadataProps: [{ key: 'model_id', value: meta.modelId }, { key: 'version', value: meta.version }, ...extraProps],
    graph: { name: meta.modelId, ...graph },
  };
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`invalid ModelProto: ${err}`);
  return onnx.ModelProto.encode(model).finish();
}

function readF32(t: onnxProto.onnx.ITensorProto): Float32Array {
  const raw = t.rawData;
  if (!raw) throw new Error(`tensor ${t.name ?? ''} has no raw_data`);
  const out = new Float32Array(raw.length / 4);
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  for (let i = 0; i < out.length; i++) out[i] = dv.getFloat32(i * 4, true);
  return out;
}

/** Reads the parameters back out of a model written by {@link exportBagMlpOnnx}. */
export function importBagMlpOnnx(bytes: Uint8Array): BagMlpParams {
  const m = onnx.ModelProto.decode(bytes);
  const init = new Map<string, onnxProto.onnx.ITensorProto>();
  for (const t of m.graph?.initializer ?? []) init.set(t.name ?? '', t);
  const get = (n: string): onnxProto.onnx.ITensorProto => {
    const t = init.get(n);
    if (!t) throw new Error(`missing initializer ${n}`);
    return t;
  };
  const e = get('embedding');
  const dims = (e.dims ?? []).map(Number);
  const b = readF32(get('out_bias'));
  return {
    buckets: dims[0] as number,
    dim: dims[1] as number,
    classes: b.length,
    emb: readF32(e),
    b0: readF32(get('hidden_bias')),
    w: readF32(get('out_weight')),
    b,
  };
}

// ---------------------------------------------------------------------------------------------
// Transformer encoder

function i8Tensor(name: string, dims: number[], data: Int8Array): onnxProto.onnx.ITensorProto {
  return { name, dims, dataType: INT8, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

function f32Scalar(name: string, x: number): onnxProto.onnx.ITensorProto {
  return f32Tensor(name, [], new Float32Array([x]));
}

/** Symmetric int8 per-channel quantisation of a row-major [R, C] matrix along `axis` (0: per row, 1: per column). */
export function quantizeInt8(
  data: Float32Array,
  rows: number,
  cols: number,
  axis: 0 | 1,
): { q: Int8Array; scale: Float32Array } {
  const channels = axis === 0 ? rows : cols;
  const maxAbs = new Float32Array(channels);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const ch = axis === 0 ? r : c;
      maxAbs[ch] = Math.max(maxAbs[ch] as number, Math.abs(data[r * cols + c] as number));
    }
  }
  const scale = new Float32Array(channels);
  for (let ch = 0; ch < channels; ch++) scale[ch] = (maxAbs[ch] as number) > 0 ? (maxAbs[ch] as number) / 127 : 1;
  const q = new Int8Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const s = scale[axis === 0 ? r : c] as number;
      q[r * cols + c] = Math.max(-127, Math.min(127, Math.round((data[r * cols + c] as number) / s)));
    }
  }
  return { q, scale };
}

/** The float weights an int8 graph computes with: q * scale (float32), per channel. */
export function dequantizeInt8(
  q: Int8Array,
  scale: Float32Array,
  rows: number,
  cols: number,
  axis: 0 | 1,
): Float32Array {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++)
    for (let c = 0; c < cols; c++)
      out[r * cols + c] = Math.fround((q[r * cols + c] as number) * (scale[axis === 0 ? r : c] as number));
  return out;
}

/** Matrices stored as int8 in the quantised graph (embedding per row, the others per output column). */
export function quantizedParam(name: string): 0 | 1 | null {
  if (name === 'tok_emb') return 0;
  return /\.(wqkv|wo|w1|w2)$/.test(name) ? 1 : null;
}

/** The parameters as the int8 graph sees them (quantised matrices dequantised), for parity checks. */
export function effectiveInt8Params(params: TransformerParams): TransformerParams {
  const out: TransformerParams = new Map();
  for (const [name, p] of params) {
    const axis = quantizedParam(name);
    if (axis === null) {
      out.set(name, p);
      continue;
    }
    const [R, C] = p.shape as [number, number];
    const { q, scale } = quantizeInt8(p.data, R, C, axis);
    out.set(name, { shape: p.shape, data: dequantizeInt8(q, scale, R, C, axis) });
  }
  return out;
}

/**
 * The transformer as an ONNX graph (opset 17, IR 8). Input `input_ids` int64 [N, T] (T ≤ max_tokens,
 * 0 = padding, the mask is derived in the graph); output `scores` float32 [N].
 *   mask = Cast(Not(Equal(ids, 0))); bias = Unsqueeze((1 - mask) * -1e9, [1, 2])
 *   x = Gather(tok_emb, ids) + Slice(pos_emb, 0, T)
 *   block: h = LayerNormalization(x); qkv = h @ Wqkv + b -> Reshape [N,T,3H,dh] -> Transpose [0,2,1,3]
 *          -> Split(axis 1) q,k,v; ctx = Softmax(q·s @ kᵀ + bias) @ v -> Transpose -> Reshape [N,T,D]
 *          x += ctx @ Wo + bo; x += Relu(LN2(x) @ W1 + b1) @ W2 + b2
 *   scores = Sigmoid(Squeeze(ReduceSum(LN_f(x) * mask) / ReduceSum(mask) @ w + b))
 * `int8`: the embedding table and the block matrices are stored as int8 with per-channel float
 * scales (symmetric, zero point 0): DequantizeLinear(axis 1) before each MatMul, and for the embedding
 * Gather of int8 rows times Gather of their row scales (only the looked-up rows are dequantised).
 */
export function exportTransformerOnnx(
  c: TransformerConfig,
  params: TransformerParams,
  meta: OnnxExportMeta & { int8?: boolean },
): Uint8Array {
  const int8 = meta.int8 ?? false;
  const D = c.d_model;
  const H = c.heads;
  const dh = D / H;
  const nodes: onnxProto.onnx.INodeProto[] = [];
  const initializer: onnxProto.onnx.ITensorProto[] = [];
  const add = (op: string, input: string[], out: string, attrs: onnxProto.onnx.IAttributeProto[] = []): string => {
    nodes.push(node(op, input, [out], attrs));
    return out;
  };
  for (const [name, shape] of paramShapes(c)) {
    const p = params.get(name);
    if (!p || p.data.length !== shape.reduce((a, b) => a * b, 1))
      throw new Error(`parameter ${name}: expected shape ${JSON.stringify(shape)}`);
    const axis = int8 ? quantizedParam(name) : null;
    if (axis === null) {
      initializer.push(f32Tensor(name, shape, p.data));
      continue;
    }
    const { q, scale } = quantizeInt8(p.data, shape[0] as number, shape[1] as number, axis);
    initializer.push(i8Tensor(`${name}.q`, shape, q), f32Tensor(`${name}.scale`, [scale.length], scale));
    if (name === 'tok_emb') continue; // dequantised after the Gather, below
    initializer.push(i8Tensor(`${name}.zero`, [scale.length], new Int8Array(scale.length)));
    add('DequantizeLinear', [`${name}.q`, `${name}.scale`, `${name}.zero`], name, [{ name: 'axis', type: INT, i: 1 }]);
  }
  initializer.push(
    i64Tensor('zero_i64', [], [0]),
    i64Tensor('idx_1', [1], [1]),
    i64Tensor('axes_0', [1], [0]),
    i64Tensor('axes_1', [1], [1]),
    i64Tensor('axes_2', [1], [2]),
    i64Tensor('axes_12', [2], [1, 2]),
    i64Tensor('qkv_shape', [4], [0, 0, 3 * H, dh]),
    i64Tensor('ctx_shape', [3], [0, 0, D]),
    i64Tensor('split_h', [3], [H, H, H]),
    f32Scalar('one', 1),
    f32Scalar('mask_neg', MASK_NEG),
    f32Scalar('q_scale', 1 / Math.sqrt(dh)),
  );
  const eps = c.layer_norm_epsilon;
  const ln = (x: string, p: string, out: string): string =>
    add('LayerNormalization', [x, `${p}.g`, `${p}.b`], out, [
      { name: 'axis', type: INT, i: -1 },
      { name: 'epsilon', type: FLOAT_ATTR, f: eps },
    ]);

  add('Equal', ['input_ids', 'zero_i64'], 'is_pad');
  add('Not', ['is_pad'], 'not_pad');
  add('Cast', ['not_pad'], 'mask', [{ name: 'to', type: INT, i: FLOAT }]);
  add('Sub', ['one', 'mask'], 'inv_mask');
  add('Mul', ['inv_mask', 'mask_neg'], 'bias_2d');
  add('Unsqueeze', ['bias_2d', 'axes_12'], 'att_bias');
  add('Shape', ['input_ids'], 'ids_shape');
  add('Gather', ['ids_shape', 'idx_1'], 'seq_len', [{ name: 'axis', type: INT, i: 0 }]);
  add('Slice', ['pos_emb', 'axes_0', 'seq_len', 'axes_0'], 'pos');
  if (int8) {
    add('Gather', ['tok_emb.q', 'input_ids'], 'tok_q', [{ name: 'axis', type: INT, i: 0 }]);
    add('Cast', ['tok_q'], 'tok_f', [{ name: 'to', type: INT, i: FLOAT }]);
    add('Gather', ['tok_emb.scale', 'input_ids'], 'tok_s', [{ name: 'axis', type: INT, i: 0 }]);
    add('Unsqueeze', ['tok_s', 'axes_2'], 'tok_s3');
    add('Mul', ['tok_f', 'tok_s3'], 'tok');
  } else add('Gather', ['tok_emb', 'input_ids'], 'tok', [{ name: 'axis', type: INT, i: 0 }]);
  let x = add('Add', ['tok', 'pos'], 'x0');
  for (let i = 0; i < c.blocks; i++) {
    const b = `b${i}`;
    const h = ln(x, `${b}.ln1`, `${b}.h1`);
    add('MatMul', [h, `${b}.wqkv`], `${b}.qkv_mm`);
    add('Add', [`${b}.qkv_mm`, `${b}.bqkv`], `${b}.qkv`);
    add('Reshape', [`${b}.qkv`, 'qkv_shape'], `${b}.qkv4`);
    add('Transpose', [`${b}.qkv4`], `${b}.qkvT`, [{ name: 'perm', type: INTS, ints: [0, 2, 1, 3] }]);
    nodes.push(
      node('Split', [`${b}.qkvT`, 'split_h'], [`${b}.q`, `${b}.k`, `${b}.v`], [{ name: 'axis', type: INT, i: 1 }]),
    );
    add('Mul', [`${b}.q`, 'q_scale'], `${b}.qs`);
    add('Transpose', [`${b}.k`], `${b}.kT`, [{ name: 'perm', type: INTS, ints: [0, 1, 3, 2] }]);
    add('MatMul', [`${b}.qs`, `${b}.kT`], `${b}.logits`);
    add('Add', [`${b}.logits`, 'att_bias'], `${b}.logits_m`);
    add('Softmax', [`${b}.logits_m`], `${b}.att`, [{ name: 'axis', type: INT, i: -1 }]);
    add('MatMul', [`${b}.att`, `${b}.v`], `${b}.ctx4`);
    add('Transpose', [`${b}.ctx4`], `${b}.ctxT`, [{ name: 'perm', type: INTS, ints: [0, 2, 1, 3] }]);
    add('Reshape', [`${b}.ctxT`, 'ctx_shape'], `${b}.ctx`);
    add('MatMul', [`${b}.ctx`, `${b}.wo`], `${b}.o_mm`);
    add('Add', [`${b}.o_mm`, `${b}.bo`], `${b}.o`);
    x = add('Add', [x, `${b}.o`], `${b}.x_att`);
    const h2 = ln(x, `${b}.ln2`, `${b}.h2`);
    add('MatMul', [h2, `${b}.w1`], `${b}.f1_mm`);
    add('Add', [`${b}.f1_mm`, `${b}.b1`], `${b}.f1`);
    add('Relu', [`${b}.f1`], `${b}.f1r`);
    add('MatMul', [`${b}.f1r`, `${b}.w2`], `${b}.f2_mm`);
    add('Add', [`${b}.f2_mm`, `${b}.b2`], `${b}.f2`);
    x = add('Add', [x, `${b}.f2`], `${b}.x`);
  }
  const hf = ln(x, 'ln_f', 'hf');
  add('Unsqueeze', ['mask', 'axes_2'], 'mask3');
  add('Mul', [hf, 'mask3'], 'hf_masked');
  add('ReduceSum', ['hf_masked', 'axes_1'], 'pooled_sum', [{ name: 'keepdims', type: INT, i: 0 }]);
  add('ReduceSum', ['mask', 'axes_1'], 'mask_sum', [{ name: 'keepdims', type: INT, i: 1 }]);
  add('Div', ['pooled_sum', 'mask_sum'], 'pooled');
  add('MatMul', ['pooled', 'head.w'], 'head_mm');
  add('Add', ['head_mm', 'head.b'], 'logit2');
  add('Squeeze', ['logit2', 'axes_1'], 'logit');
  add('Sigmoid', ['logit'], 'scores');

  return encodeModel(
    meta,
    17,
    {
      node: nodes,
      initializer,
      input: [valueInfo('input_ids', INT64, ['N', 'T'])],
      output: [valueInfo('scores', FLOAT, ['N'])],
    },
    [
      { key: 'config', value: JSON.stringify(c) },
      { key: 'weights', value: int8 ? 'int8-per-channel' : 'float32' },
    ],
  );
}

/**
 * Reads the config and parameters back out of a model written by {@link exportTransformerOnnx};
 * int8 matrices come back dequantised (the float weights the graph computes with).
 */
export function importTransformerOnnx(bytes: Uint8Array): { config: TransformerConfig; params: TransformerParams } {
  const m = onnx.ModelProto.decode(bytes);
  const cfgProp = m.metadataProps?.find((p) => p.key === 'config')?.value;
  if (!cfgProp) throw new Error('not a transformer-encoder-v1 model (no config metadata)');
  const config = JSON.parse(cfgProp) as TransformerConfig;
  const init = new Map<string, onnxProto.onnx.ITensorProto>();
  for (const t of m.graph?.initializer ?? []) init.set(t.name ?? '', t);
  const params: TransformerParams = new Map();
  for (const [name, shape] of paramShapes(config)) {
    const f = init.get(name);
    if (f) {
      params.set(name, { shape, data: readF32(f) });
      continue;
    }
    const q = init.get(`${name}.q`);
    const s = init.get(`${name}.scale`);
    const axis = quantizedParam(name);
    if (!q?.rawData || !s || axis === null) throw new Error(`missing initializer ${name}`);
    const qd = new Int8Array(q.rawData.buffer, q.rawData.byteOffset, q.rawData.byteLength);
    params.set(name, { shape, data: dequantizeInt8(qd, readF32(s), shape[0] as number, shape[1] as number, axis) });
  }
  return { config, params };
}
