/**
 * A minimal ONNX `ModelProto` encoder: the few protobuf messages a hand-built inference graph needs
 * (model, graph, node, attribute, tensor, value info), written with field numbers from onnx.proto.
 * Serving builds graphs at load time with it instead of `onnx-proto` (a dev dependency that pulls
 * protobufjs into production; see docs/decisions/0006-sentence-encoder.md). Repeated scalars are
 * written unpacked, which every protobuf parser accepts for proto2 files like onnx.proto.
 */

export const DataType = { FLOAT: 1, INT64: 7 } as const;

export type AttrValue =
  { kind: 'int'; value: number } | { kind: 'float'; value: number } | { kind: 'ints'; value: number[] };

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, AttrValue>;
}

export interface OnnxTensor {
  name: string;
  dims: number[];
  dataType: number;
  /** little-endian element bytes */
  raw: Uint8Array;
}

export interface OnnxValueInfo {
  name: string;
  elemType: number;
  dims: (number | string)[];
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  inputs: OnnxValueInfo[];
  outputs: OnnxValueInfo[];
}

export interface OnnxModelMeta {
  producer: string;
  producerVersion: string;
  opset: number;
  props?: Record<string, string>;
}

const utf8 = new TextEncoder();

/** Appends protobuf fields to a growing list of chunks; `bytes()` joins them. */
class Writer {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array): void {
    this.chunks.push(b);
    this.size += b.length;
  }

  private varint(v: bigint): void {
    let x = BigInt.asUintN(64, v);
    const out: number[] = [];
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    this.push(Uint8Array.from(out));
  }

  private tag(field: number, wire: number): void {
    this.varint(BigInt((field << 3) | wire));
  }

  int(field: number, v: number): this {
    this.tag(field, 0);
    this.varint(BigInt(v));
    return this;
  }

  float(field: number, v: number): this {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, v, true);
    this.push(b);
    return this;
  }

  bytes(field: number, b: Uint8Array): this {
    this.tag(field, 2);
    this.varint(BigInt(b.length));
    this.push(b);
    return this;
  }

  string(field: number, s: string): this {
    return this.bytes(field, utf8.encode(s));
  }

  message(field: number, w: Writer): this {
    return this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}

const ATTR_TYPE = { float: 1, int: 2, ints: 7 } as const;

function attribute(name: string, a: AttrValue): Writer {
  const w = new Writer().string(1, name);
  if (a.kind === 'float') w.float(2, a.value);
  else if (a.kind === 'int') w.int(3, a.value);
  else for (const v of a.value) w.int(8, v);
  return w.int(20, ATTR_TYPE[a.kind]);
}

function nodeProto(n: OnnxNode): Writer {
  const w = new Writer();
  for (const i of n.inputs) w.string(1, i);
  for (const o of n.outputs) w.string(2, o);
  w.string(3, n.outputs[0] ?? n.op).string(4, n.op);
  for (const [k, v] of Object.entries(n.attrs ?? {})) w.message(5, attribute(k, v));
  return w;
}

function tensorProto(t: OnnxTensor): Writer {
  const w = new Writer();
  for (const d of t.dims) w.int(1, d);
  return w.int(2, t.dataType).string(8, t.name).bytes(9, t.raw);
}

function valueInfo(v: OnnxValueInfo): Writer {
  const shape = new Writer();
  for (const d of v.dims) {
    shape.message(1, typeof d === 'string' ? new Writer().string(2, d) : new Writer().int(1, d));
  }
  const tensorType = new Writer().int(1, v.elemType).message(2, shape);
  return new Writer().string(1, v.name).message(2, new Writer().message(1, tensorType));
}

/** Encodes an IR-version-8 model with one graph in the default domain. */
export function encodeOnnxModel(graph: OnnxGraph, meta: OnnxModelMeta): Uint8Array {
  const g = new Writer();
  for (const n of graph.nodes) g.message(1, nodeProto(n));
  g.string(2, graph.name);
  for (const t of graph.initializers) g.message(5, tensorProto(t));
  for (const i of graph.inputs) g.message(11, valueInfo(i));
  for (const o of graph.outputs) g.message(12, valueInfo(o));
  const m = new Writer()
    .int(1, 8)
    .string(2, meta.producer)
    .string(3, meta.producerVersion)
    .message(7, g)
    .message(8, new Writer().string(1, '').int(2, meta.opset));
  for (const [key, value] of Object.entries(meta.props ?? {})) {
    m.message(14, new Writer().string(1, key).string(2, value));
  }
  return m.finish();
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** float32 little-endian bytes of `data` (a view of it on little-endian machines, else a copy). */
export function f32Raw(data: Float32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  const out = new Uint8Array(data.length * 4);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat32(i * 4, data[i] as number, true);
  return out;
}

/** int64 little-endian bytes of `values`. */
export function i64Raw(values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 8);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => dv.setBigInt64(i * 8, BigInt(v), true));
  return out;
}
