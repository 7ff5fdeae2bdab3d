/**
 * inference/onnx-writer.ts against the reference protobuf schema (`onnx-proto`, a dev dependency):
 * what it encodes decodes to the same model, negative ints and float attributes included, and
 * onnxruntime runs it.
 */
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { DataType, encodeOnnxModel, f32Raw, i64Raw } from '../../inference/onnx-writer.ts';

const { onnx } = onnxProto;

function tinyModel(): Uint8Array {
  return encodeOnnxModel(
    {
      name: 'tiny',
      nodes: [
        { op: 'Mul', inputs: ['x', 'w'], outputs: ['xw'] },
        { op: 'ReduceSum', inputs: ['xw', 'axes'], outputs: ['s'], attrs: { keepdims: { kind: 'int', value: 0 } } },
        { op: 'LeakyRelu', inputs: ['s'], outputs: ['y'], attrs: { alpha: { kind: 'float', value: 0.25 } } },
        { op: 'Transpose', inputs: ['x'], outputs: ['xt'], attrs: { perm: { kind: 'ints', value: [1, 0] } } },
      ],
      initializers: [
        { name: 'w', dims: [3], dataType: DataType.FLOAT, raw: f32Raw(Float32Array.from([1, -2, 0.5])) },
        { name: 'axes', dims: [1], dataType: DataType.INT64, raw: i64Raw([-1]) },
      ],
      inputs: [{ name: 'x', elemType: DataType.FLOAT, dims: ['N', 3] }],
      outputs: [
        { name: 'y', elemType: DataType.FLOAT, dims: ['N'] },
        { name: 'xt', elemType: DataType.FLOAT, dims: [3, 'N'] },
      ],
    },
    { producer: 'test', producerVersion: '1', opset: 13, props: { k: 'v' } },
  );
}

describe('encodeOnnxModel', () => {
  it('decodes with the ONNX schema to what was written', () => {
    const m = onnx.ModelProto.decode(tinyModel());
    expect(Number(m.irVersion)).toBe(8);
    expect(m.opsetImport?.map((o) => [o.domain, Number(o.version)])).toEqual([['', 13]]);
    expect(m.metadataProps).toEqual([expect.objectContaining({ key: 'k', value: 'v' })]);
    const g = m.graph as onnxProto.onnx.IGraphProto;
    expect(g.node?.map((n) => n.opType)).toEqual(['Mul', 'ReduceSum', 'LeakyRelu', 'Transpose']);
    expect(g.node?.[2]?.attribute?.[0]?.f).toBeCloseTo(0.25);
    expect(g.node?.[3]?.attribute?.[0]?.ints?.map(Number)).toEqual([1, 0]);
    const axes = g.initializer?.find((t) => t.name === 'axes')?.rawData as Uint8Array;
    expect(new DataView(axes.buffer, axes.byteOffset, 8).getBigInt64(0, true)).toBe(-1n);
    expect(g.input?.[0]?.type?.tensorType?.shape?.dim?.map((d) => d.dimParam || Number(d.dimValue))).toEqual(['N', 3]);
  });

  it('runs in onnxruntime', async () => {
    const s = await ort.InferenceSession.create(tinyModel());
    const x = new ort.Tensor('float32', Float32Array.from([1, 1, 1, 2, 0, -4]), [2, 3]);
    const out = await s.run({ x });
    expect(Array.from(out.y?.data as Float32Array)).toEqual([-0.125, 0]); // sums −0.5 and 0, LeakyRelu(α 0.25);
    expect(Array.from(out.xt?.data as Float32Array)).toEqual([1, 2, 1, 0, 1, -4]);
    await s.release();
  });
});
