/**
 * Serving form of the embedding-bag MLPs (pii-ner, toxicity). Their artifacts hold training's graph
 * (training/onnx-io.ts `exportBagMlpOnnx`):
 *   Gather(E, ids) -> Mul(·, Unsqueeze(weights)) -> ReduceSum(axis 1) -> Add -> Relu -> MatMul -> Add -> Sigmoid | Softmax
 * whose Gather and Mul each write an [N, L, dim] tensor (pii-ner: 33 × 32 floats per token, megabytes a
 * batch) before the sum reads it back. At load time the artifact (sha256-checked as always) is rebuilt
 * with the same weights into a graph that computes the same function in fewer passes over memory:
 * - `weighted` (toxicity): the weighted sum as a batched MatMul, weights [N, 1, L] × Gather [N, L, dim];
 * - `constant` (pii-ner, where every feature of every row has the same value v): Gather -> ReduceSum ->
 *   Mul(v), and no `weights` input at all.
 * Both take int32 ids (no int64 conversion). Sums are taken in another order, so outputs differ from the
 * artifact's graph by float rounding (~1e-7 in probability); the eval is unchanged (docs/performance.md).
 * An artifact that is not exactly training's bag-MLP graph is served as it is.
 */
import { DataType, encodeOnnxModel, i64Raw, type OnnxNode, type OnnxTensor } from './onnx-writer.ts';

/** ONNX TensorProto data type of int32. */
const INT32 = 6;
const BAG_OPS = ['Gather', 'Unsqueeze', 'Mul', 'ReduceSum', 'Add', 'Relu', 'MatMul', 'Add'];
const TAIL_INPUTS = ['hidden_bias', 'out_weight', 'out_bias'];

export type BagWeights = { kind: 'weighted' } | { kind: 'constant'; value: number };

/** What the serving graph takes: `weights` is absent in the constant form. */
export interface BagGraph {
  bytes: Uint8Array;
  idsType: 'int32';
  hasWeights: boolean;
}

interface Parsed {
  ops: string[];
  output: string;
  initializers: Map<string, OnnxTensor>;
}

/**
 * The serving graph of a training bag-MLP artifact, or null when `bytes` is not one (other ops,
 * missing or non-float tensors): the caller then serves the artifact unchanged.
 */
export function bagMlpServingGraph(bytes: Uint8Array, weights: BagWeights): BagGraph | null {
  const m = parseModel(bytes);
  if (!m) return null;
  const last = m.ops[m.ops.length - 1];
  if (m.ops.length !== BAG_OPS.length + 1 || BAG_OPS.some((op, i) => m.ops[i] !== op)) return null;
  if (last !== 'Sigmoid' && last !== 'Softmax') return null;
  const emb = m.initializers.get('embedding');
  if (!emb || emb.dims.length !== 2 || emb.dataType !== DataType.FLOAT) return null;
  if (TAIL_INPUTS.some((n) => m.initializers.get(n)?.dataType !== DataType.FLOAT)) return null;
  const dim = emb.dims[1] as number;
  const outWeight = m.initializers.get('out_weight') as OnnxTensor;
  const classes = outWeight.dims.length === 2 ? (outWeight.dims[1] as number) : 1;
  const nodes: OnnxNode[] = [
    { op: 'Gather', inputs: ['embedding', 'ids'], outputs: ['emb'], attrs: { axis: { kind: 'int', value: 0 } } },
  ];
  const initializers: OnnxTensor[] = [
    emb,
    ...TAIL_INPUTS.map((n) => m.initializers.get(n) as OnnxTensor),
    { name: 'axes_1', dims: [1], dataType: DataType.INT64, raw: i64Raw([1]) },
  ];
  if (weights.kind === 'constant') {
    nodes.push(
      { op: 'ReduceSum', inputs: ['emb', 'axes_1'], outputs: ['sum'], attrs: { keepdims: { kind: 'int', value: 0 } } },
      { op: 'Mul', inputs: ['sum', 'scale'], outputs: ['bag'] },
    );
    const scale = new Uint8Array(4);
    new DataView(scale.buffer).setFloat32(0, weights.value, true);
    initializers.push({ name: 'scale', dims: [], dataType: DataType.FLOAT, raw: scale });
  } else {
    nodes.push(
      { op: 'Unsqueeze', inputs: ['weights', 'axes_1'], outputs: ['weights_row'] },
      { op: 'MatMul', inputs: ['weights_row', 'emb'], outputs: ['bag_row'] },
      { op: 'Squeeze', inputs: ['bag_row', 'axes_1'], outputs: ['bag'] },
    );
  }
  nodes.push(
    { op: 'Add', inputs: ['bag', 'hidden_bias'], outputs: ['pre'] },
    { op: 'Relu', inputs: ['pre'], outputs: ['hidden'] },
    { op: 'MatMul', inputs: ['hidden', 'out_weight'], outputs: ['logits_raw'] },
    { op: 'Add', inputs: ['logits_raw', 'out_bias'], outputs: ['logits'] },
    last === 'Sigmoid'
      ? { op: 'Sigmoid', inputs: ['logits'], outputs: [m.output] }
      : { op: 'Softmax', inputs: ['logits'], outputs: [m.output], attrs: { axis: { kind: 'int', value: -1 } } },
  );
  const inputs = [{ name: 'ids', elemType: INT32, dims: ['N', 'L'] as (string | number)[] }];
  if (weights.kind === 'weighted') inputs.push({ name: 'weights', elemType: DataType.FLOAT, dims: ['N', 'L'] });
  const out = encodeOnnxModel(
    {
      name: 'bag-mlp-serving',
      nodes,
      initializers,
      inputs,
      outputs: [{ name: m.output, elemType: DataType.FLOAT, dims: last === 'Sigmoid' ? ['N'] : ['N', classes] }],
    },
    { producer: 'content-firewall/inference', producerVersion: String(dim), opset: 13 },
  );
  return { bytes: out, idsType: 'int32', hasWeights: weights.kind === 'weighted' };
}

// ---------------------------------------------------------------------------------------------
// A protobuf reader for the few ModelProto fields the rewrite needs (field numbers from onnx.proto):
// ModelProto.graph = 7; GraphProto.node = 1, .initializer = 5, .output = 12; NodeProto.output = 2,
// .op_type = 4; TensorProto.dims = 1, .data_type = 2, .name = 8, .raw_data = 9; ValueInfoProto.name = 1.

interface Field {
  no: number;
  wire: number;
  /** varint value (wire 0) */
  int: number;
  /** bytes (wire 2) */
  bytes: Uint8Array;
}

/** The top-level fields of one message. @throws on malformed input */
function fields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  const varint = (): number => {
    let v = 0;
    let mul = 1;
    for (;;) {
      if (pos >= buf.length) throw new Error('truncated varint');
      const b = buf[pos++] as number;
      v += (b & 0x7f) * mul;
      if (b < 0x80) return v;
      mul *= 128;
    }
  };
  const empty = new Uint8Array(0);
  while (pos < buf.length) {
    const key = varint();
    const wire = key % 8;
    const no = Math.floor(key / 8);
    if (wire === 0) out.push({ no, wire, int: varint(), bytes: empty });
    else if (wire === 2) {
      const len = varint();
      if (pos + len > buf.length) throw new Error('truncated field');
      out.push({ no, wire, int: 0, bytes: buf.subarray(pos, pos + len) });
      pos += len;
    } else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const text = new TextDecoder();

function parseModel(bytes: Uint8Array): Parsed | null {
  try {
    const graph = fields(bytes).find((f) => f.no === 7 && f.wire === 2);
    if (!graph) return null;
    const ops: string[] = [];
    const outputs: string[] = [];
    const initializers = new Map<string, OnnxTensor>();
    for (const f of fields(graph.bytes)) {
      if (f.wire !== 2) continue;
      if (f.no === 1) {
        const op = fields(f.bytes).find((x) => x.no === 4 && x.wire === 2);
        ops.push(op ? text.decode(op.bytes) : '');
      } else if (f.no === 5) {
        const t = tensor(f.bytes);
        if (t) initializers.set(t.name, t);
      } else if (f.no === 12) {
        const name = fields(f.bytes).find((x) => x.no === 1 && x.wire === 2);
        if (name) outputs.push(text.decode(name.bytes));
      }
    }
    if (outputs.length !== 1) return null;
    return { ops, output: outputs[0] as string, initializers };
  } catch {
    return null;
  }
}

/** A tensor with raw_data (what training writes); null for any other encoding. */
function tensor(buf: Uint8Array): OnnxTensor | null {
  const dims: number[] = [];
  let dataType = 0;
  let name = '';
  let raw: Uint8Array | null = null;
  for (const f of fields(buf)) {
    if (f.no === 1 && f.wire === 0) dims.push(f.int);
    else if (f.no === 1 && f.wire === 2) {
      // packed dims
      let pos = 0;
      let v = 0;
      let mul = 1;
      for (; pos < f.bytes.length; pos++) {
        const b = f.bytes[pos] as number;
        v += (b & 0x7f) * mul;
        mul *= 128;
        if (b < 0x80) {
          dims.push(v);
          v = 0;
          mul = 1;
        }
      }
    } else if (f.no === 2 && f.wire === 0) dataType = f.int;
    else if (f.no === 8 && f.wire === 2) name = text.decode(f.bytes);
    else if (f.no === 9 && f.wire === 2) raw = f.bytes;
  }
  return raw === null ? null : { name, dims, dataType, raw };
}
