/**
 * What the ONNX loaders share: onnxruntime-node, imported on first use with its telemetry off, and
 * one InferenceSession per model with 1 intra-op / 1 inter-op thread (the engine parallelises across
 * worker threads, not inside a session); int64 id tensors.
 */
import { isMainThread } from 'node:worker_threads';
import type * as OrtTypes from 'onnxruntime-node';
import { readVerified, type ModelEntry } from './manifest.ts';

export type Ort = typeof OrtTypes;
let ortPromise: Promise<Ort> | undefined;

/**
 * onnxruntime-node's native library collects telemetry for a collector outside this network unless
 * ORT_DISABLE_TELEMETRY is set in the process environment when it starts: a device id and a growing
 * event queue (device hash, OS, CPU and memory figures) under $XDG_CACHE_HOME or ~/.cache
 * (Microsoft/DeveloperTools/.onnxruntime/), and `mat-debug-<pid>.log` in the temp folder. Its
 * JavaScript API has no switch of its own. Only the main thread's process.env writes through to the
 * environment the library reads; a worker thread gets a copy taken when it starts. So: call this on
 * the main thread before the first session or worker thread (workers/pool.ts does).
 */
export function disableOrtTelemetry(): void {
  if (isMainThread) process.env.ORT_DISABLE_TELEMETRY = '1';
}

/** @throws Error in a worker thread whose process did not switch the telemetry off before starting it. */
function loadOrt(): Promise<Ort> {
  disableOrtTelemetry();
  if (process.env.ORT_DISABLE_TELEMETRY !== '1')
    throw new Error('onnxruntime telemetry is on in this process: start model threads through workers/pool.ts');
  ortPromise ??= import('onnxruntime-node') as Promise<Ort>;
  return ortPromise;
}

/** A session of `model` (ONNX bytes) with the options every model shares. */
export async function openSession(model: Uint8Array): Promise<{ ort: Ort; session: OrtTypes.InferenceSession }> {
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  return { ort, session };
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
  const verified = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return openSession(rewrite ? rewrite(verified) : verified);
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
