/**
 * What the ONNX loaders share: onnxruntime-node, imported on first use, and one InferenceSession per
 * model with 1 intra-op / 1 inter-op thread (the engine parallelises across worker threads, not
 * inside a session); int64 id tensors.
 */
import type * as OrtTypes from 'onnxruntime-node';
import { readVerified, type ModelEntry } from './manifest.ts';

export type Ort = typeof OrtTypes;
let ortPromise: Promise<Ort> | undefined;
function loadOrt(): Promise<Ort> {
  ortPromise ??= import('onnxruntime-node') as Promise<Ort>;
  return ortPromise;
}

/**
 * The entry's model file (sha256 checked) in a new session; `rewrite` may swap the verified bytes for
 * an equivalent serving graph built from them (bag-mlp-graph.ts). @throws ModelIntegrityError
 */
export async function createSession(
  entry: ModelEntry,
  dir: string,
  rewrite?: (verified: Uint8Array) => Uint8Array,
): Promise<{ ort: Ort; session: OrtTypes.InferenceSession }> {
  const bytes = readVerified(entry, dir);
  const ort = await loadOrt();
  const verified = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const session = await ort.InferenceSession.create(rewrite ? rewrite(verified) : verified, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  return { ort, session };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** int64 tensor data from non-negative int32 ids without per-element BigInt conversion. */
export function toInt64(ids: Int32Array): BigInt64Array {
  const out = new BigInt64Array(ids.length);
  if (LITTLE_ENDIAN) {
    const v = new Int32Array(out.buffer);
    for (let i = 0; i < ids.length; i++) v[i * 2] = ids[i] as number;
  } else {
    for (let i = 0; i < ids.length; i++) out[i] = BigInt(ids[i] as number);
  }
  return out;
}
