/**
 * Session runs of an operator-supplied Hugging Face model (hf-classifier.ts): which window rows go
 * together, the input tensors the session declares, and the softmax over its logits.
 *
 * Batching: every row pads to the longest row of its run, and padded positions cost as much as real
 * ones (attention quadratically). Rows are sorted by length and a run is cut where its padding would
 * exceed 25 % of its cells, or where it would pass 2048 cells (4 full 512-token windows: the
 * attention scores of a run are rows × heads × T² floats, 50 MB at 12 heads). On the one intra-op
 * thread a session has, batching gains only what larger matrix products gain: about 20 % per window
 * at 64 tokens, nothing measurable at 512 (benchmarks/hf-overhead.ts) — so rows of very different
 * lengths are better run apart than padded together, and long rows need no big runs.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import type { Ort } from './onnx-session.ts';
import { toInt64 } from './onnx-session.ts';

/** Padding a run may hold, as a share of its cells. */
export const MAX_PADDING = 0.25;
/** Cells (rows × longest row) a run may hold. */
export const MAX_RUN_CELLS = 2048;

/** How each declared input of the session is fed. */
export interface InputSpec {
  name: string;
  role: 'ids' | 'mask' | 'types';
  type: 'int64' | 'int32';
}

/**
 * The inputs of a session: input_ids, attention_mask and token_type_ids (zeros), int64 or int32 as
 * declared. @throws Error on any other input, or without input_ids
 */
export function inputSpecs(session: InferenceSession): InputSpec[] {
  const specs = session.inputNames.map((name, i): InputSpec => {
    const role = /input_ids/.test(name)
      ? 'ids'
      : /attention_mask/.test(name)
        ? 'mask'
        : /token_type_ids/.test(name)
          ? 'types'
          : null;
    if (role === null)
      throw new Error(`model.onnx input "${name}": only input_ids, attention_mask and token_type_ids are fed`);
    const meta = session.inputMetadata?.[i];
    const type = meta && meta.isTensor && meta.type === 'int32' ? 'int32' : 'int64';
    return { name, role, type };
  });
  if (!specs.some((s) => s.role === 'ids')) throw new Error('model.onnx has no input_ids input');
  return specs;
}

/** Row indices per session run: sorted by length, longest first, cut by {@link MAX_PADDING} and {@link MAX_RUN_CELLS}. */
export function planRuns(lengths: readonly number[], maxPadding = MAX_PADDING, maxCells = MAX_RUN_CELLS): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => (lengths[b] as number) - (lengths[a] as number) || a - b);
  const runs: number[][] = [];
  let run: number[] = [];
  let width = 0;
  let cells = 0;
  for (const i of order) {
    const len = lengths[i] as number;
    if (run.length > 0) {
      const padded = (run.length + 1) * width;
      if (padded > maxCells || padded - (cells + len) > maxPadding * padded) {
        runs.push(run);
        run = [];
      }
    }
    if (run.length === 0) {
      width = len;
      cells = 0;
    }
    run.push(i);
    cells += len;
  }
  if (run.length) runs.push(run);
  return runs;
}

/** The feeds of one run: `rows` padded with `padId` to the longest, mask 1 on real tokens, token types 0. */
export function buildFeeds(
  ort: Ort,
  specs: readonly InputSpec[],
  rows: readonly Int32Array[],
  padId: number,
): { feeds: Record<string, Tensor>; width: number } {
  const B = rows.length;
  let L = 0;
  for (const r of rows) if (r.length > L) L = r.length;
  const ids = new Int32Array(B * L);
  const mask = new Int32Array(B * L);
  if (padId !== 0) ids.fill(padId);
  rows.forEach((r, k) => {
    ids.set(r, k * L);
    mask.fill(1, k * L, k * L + r.length);
  });
  const feeds: Record<string, Tensor> = {};
  for (const s of specs) {
    const data = s.role === 'ids' ? ids : s.role === 'mask' ? mask : new Int32Array(B * L);
    feeds[s.name] =
      s.type === 'int32' ? new ort.Tensor('int32', data, [B, L]) : new ort.Tensor('int64', toInt64(data), [B, L]);
  }
  return { feeds, width: L };
}

/** Summed softmax probability of `positive` in the logits row at `off` (C logits); one logit: its sigmoid. */
export function positiveScore(logits: ArrayLike<number>, off: number, C: number, positive: readonly number[]): number {
  if (C === 1) return 1 / (1 + Math.exp(-(logits[off] as number)));
  let max = -Infinity;
  for (let c = 0; c < C; c++) max = Math.max(max, logits[off + c] as number);
  let z = 0;
  let pos = 0;
  for (let c = 0; c < C; c++) {
    const e = Math.exp((logits[off + c] as number) - max);
    z += e;
    if (positive.includes(c)) pos += e;
  }
  return pos / z;
}

/** Softmax of the logits row at `from` (C logits) written into `out` at `to`. */
export function softmaxInto(logits: ArrayLike<number>, from: number, C: number, out: Float32Array, to: number): void {
  let max = -Infinity;
  for (let c = 0; c < C; c++) max = Math.max(max, logits[from + c] as number);
  let z = 0;
  for (let c = 0; c < C; c++) {
    const e = Math.exp((logits[from + c] as number) - max);
    out[to + c] = e;
    z += e;
  }
  for (let c = 0; c < C; c++) out[to + c] = (out[to + c] as number) / z;
}

/**
 * Per window, the token range [from, to) it answers for: where windows overlap, a token is taken from
 * the window it lies farther from the edge of (the overlap split at its middle), so each token is
 * judged with the most context on both sides, and an entity in an overlap comes out once.
 */
export function ownedRanges(windows: readonly { first: number; last: number }[]): { from: number; to: number }[] {
  return windows.map((w, k) => {
    const prev = windows[k - 1];
    const next = windows[k + 1];
    const from = prev ? Math.floor((w.first + prev.last) / 2) : w.first;
    const to = next ? Math.floor((next.first + w.last) / 2) : w.last;
    return { from, to };
  });
}
