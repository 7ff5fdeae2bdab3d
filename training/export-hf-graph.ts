/**
 * Our `transformer-encoder-v1` graph (training/onnx-io.ts exportTransformerOnnx: input `input_ids`,
 * mask derived from pad id 0, output `scores` = sigmoid of one logit) rewritten with the inputs and
 * output of a Hugging Face sequence classifier, every weight and every other node kept as they are:
 * - inputs `input_ids` and `attention_mask` int64 [batch, sequence]; the mask now comes from
 *   `attention_mask` (Cast to float) instead of `input_ids != 0`, so any padding id is masked;
 * - output `logits` float32 [batch, 2] = [0, z] for the model's logit z (Concat of zeros shaped like z
 *   and z): softmax gives INJECTION the probability sigmoid(z), the score the built-in loader serves.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
type INode = onnxProto.onnx.INodeProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;
const INT = onnx.AttributeProto.AttributeType.INT;

/** The nodes the rewrite replaces, by the name of what they compute. */
const MASK_NODES = ['is_pad', 'not_pad', 'mask'];
const HEAD_NODES = ['logit', 'scores'];

function valueInfo(name: string, elemType: number, dims: (string | number)[]): onnxProto.onnx.IValueInfoProto {
  const dim = dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d }));
  return { name, type: { tensorType: { elemType, shape: { dim } } } };
}

/**
 * model.onnx bytes of a `transformer-encoder-v1` model as a two-label Hugging Face classifier.
 * @throws Error when the graph is not one exportTransformerOnnx wrote (its mask and head nodes missing)
 */
export function hfClassifierGraph(bytes: Uint8Array, meta: { name: string; source: string }): Uint8Array {
  const m = onnx.ModelProto.decode(bytes);
  const g = m.graph;
  if (!g?.node) throw new Error('model.onnx has no graph');
  const byOutput = new Map<string, INode>();
  for (const n of g.node) for (const o of n.output ?? []) byOutput.set(o, n);
  const missing = [...MASK_NODES, ...HEAD_NODES, 'logit2'].filter((o) => !byOutput.has(o));
  if (missing.length || g.input?.length !== 1 || g.input[0]?.name !== 'input_ids' || g.output?.[0]?.name !== 'scores')
    throw new Error(`not a transformer-encoder-v1 graph (missing ${missing.join(', ') || 'its input_ids → scores'})`);
  const drop = new Set([...MASK_NODES, ...HEAD_NODES].map((o) => byOutput.get(o) as INode));
  const node = (opType: string, input: string[], output: string, attribute: onnxProto.onnx.IAttributeProto[] = []): INode => ({ opType, input, output: [output], name: output, attribute }); // prettier-ignore
  const kept = g.node.filter((n) => !drop.has(n));
  g.node = [
    node('Cast', ['attention_mask'], 'mask', [{ name: 'to', type: INT, i: FLOAT }]),
    ...kept,
    node('Shape', ['logit2'], 'logit2_shape'),
    // ConstantOfShape's default value is float 0
    node('ConstantOfShape', ['logit2_shape'], 'benign_logit'),
    node('Concat', ['benign_logit', 'logit2'], 'logits', [{ name: 'axis', type: INT, i: 1 }]),
  ];
  // the pad test's constant has no reader left (onnxruntime would warn at every load)
  const read = new Set(g.node.flatMap((n) => n.input ?? []));
  g.initializer = (g.initializer ?? []).filter((t) => read.has(t.name ?? ''));
  g.input = [valueInfo('input_ids', INT64, ['batch', 'sequence']), valueInfo('attention_mask', INT64, ['batch', 'sequence'])]; // prettier-ignore
  g.output = [valueInfo('logits', FLOAT, ['batch', 2])];
  g.name = meta.name;
  m.docString = `${meta.source} as a Hugging Face sequence classifier: logits [0, z], softmax = sigmoid(z)`;
  m.metadataProps = [...(m.metadataProps ?? []), { key: 'exported_from', value: meta.source }];
  const err = onnx.ModelProto.verify(m);
  if (err) throw new Error(`invalid ModelProto: ${err}`);
  return onnx.ModelProto.encode(m).finish();
}
