/**
 * Writing (and reading back) embedding-bag MLPs as ONNX models, built by hand with `onnx-proto`
 * (a dev dependency: training and tests only; serving uses onnxruntime-node).
 *
 * Graph (opset 13, IR version 8), inputs `ids` int64 [N, L] and `weights` float32 [N, L]:
 *   Gather(E, ids) -> Mul(·, Unsqueeze(weights, [2])) -> ReduceSum(axes [1], keepdims 0)
 *   -> Add(b0) -> Relu -> MatMul(W) -> Add(b) -> Sigmoid -> `scores` [N]        (binary)
 *                                              -> Softmax(axis -1) -> `probs` [N, C]  (classes > 1)
 */
import onnxProto from 'onnx-proto';
import type { BagMlpParams } from './bag-mlp.ts';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

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

function node(opType: string, input: string[], output: string[], attrs: onnxProto.onnx.IAttributeProto[] = []): onnxProto.onnx.INodeProto {
  return { opType, input, output, name: output[0] ?? opType, attribute: attrs };
}

const INT = onnx.AttributeProto.AttributeType.INT;

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
    binary ? node('Sigmoid', ['logits'], ['scores']) : node('Softmax', ['logits'], ['probs'], [{ name: 'axis', type: INT, i: -1 }]),
  ];
  const initializer = [
    f32Tensor('embedding', [p.buckets, p.dim], p.emb),
    f32Tensor('hidden_bias', [p.dim], p.b0),
    binary ? f32Tensor('out_weight', [p.dim], p.w) : f32Tensor('out_weight', [p.dim, p.classes], p.w),
    f32Tensor('out_bias', [p.classes], p.b),
    i64Tensor('axes_1', [1], [1]),
    i64Tensor('axes_2', [1], [2]),
  ];
  const model: onnxProto.onnx.IModelProto = {
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'content-firewall/models',
    producerVersion: meta.version,
    docString: meta.docString ?? '',
    metadataProps: [
      { key: 'model_id', value: meta.modelId },
      { key: 'version', value: meta.version },
    ],
    graph: {
      name: meta.modelId,
      node: nodes,
      initializer,
      input: [valueInfo('ids', INT64, ['N', 'L']), valueInfo('weights', FLOAT, ['N', 'L'])],
      output: [binary ? valueInfo('scores', FLOAT, ['N']) : valueInfo('probs', FLOAT, ['N', p.classes])],
    },
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
