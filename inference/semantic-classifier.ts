/**
 * `use-lite-head-v1` classifiers (pi-semantic): the pretrained sentence encoder (`sentence-encoder.ts`)
 * embeds the text in windows of `window_tokens` SentencePiece tokens (the first and last `max_windows / 2`
 * windows of longer text), the embeddings are max-pooled per dimension, and a logistic head
 * (`logistic-head.ts`, the entry's JSON file) scores the pooled vector. Training
 * (`training/trainers/pi-semantic.ts`) pools the same way, so a text scores the same in both.
 *
 * The heads of one thread share one encoder (one ONNX session: the graph's weights once per thread, not
 * once per head) and a small LRU of window embeddings, so two heads reading the same windows in one
 * thread (a chat message scored for injection and for toxicity) embed them once.
 */
import type { TextClassifier } from './classifier.ts';
import { headScore, parseHead } from './logistic-head.ts';
import { checkKind, MODELS_DIR, ModelIntegrityError, readVerified, type ModelEntry } from './manifest.ts';
import { loadSentenceEncoder, type SentenceEncoder } from './sentence-encoder.ts';
import type { EncoderPrecision } from './use-lite-graph.ts';
import { tokenWindows } from './use-lite-tokenizer.ts';

export const SEMANTIC_FEATURIZER = 'use-lite-head-v1';

export interface SemanticFeaturizer {
  type: typeof SEMANTIC_FEATURIZER;
  /** the encoder the head was trained on (`use-lite@<package version>`); another one is refused */
  encoder: string;
  window_tokens: number;
  max_windows: number;
}

/** The token windows a text is embedded in: all of them, or the first and last `max / 2` of longer text. */
export function pooledWindows(ids: readonly number[], size: number, max: number): number[][] {
  const ws = tokenWindows(ids, size);
  return ws.length > max ? [...ws.slice(0, max / 2), ...ws.slice(-max / 2)] : ws;
}

/** Per-dimension max of `rows` into `out`. */
export function maxPool(rows: readonly Float32Array[], out: Float32Array): Float32Array {
  out.fill(-Infinity);
  for (const v of rows) for (let j = 0; j < out.length; j++) if ((v[j] as number) > (out[j] as number)) out[j] = v[j]!;
  return out;
}

/** Loads the head (sha256-checked) and the encoder (~0.5 s). @throws ModelIntegrityError on a foreign encoder */
export async function loadSemanticClassifier(entry: ModelEntry, dir: string = MODELS_DIR): Promise<TextClassifier> {
  checkKind(entry, 'text-classification', 'onnx');
  const f = entry.featurizer as unknown as SemanticFeaturizer;
  if (f.type !== SEMANTIC_FEATURIZER) throw new Error(`model "${entry.id}": featurizer ${String(f.type)}`);
  const head = parseHead(readVerified(entry, dir).toString('utf8'));
  const encoder = await acquireEncoder();
  if (encoder.id !== f.encoder || head.dim !== encoder.dim) {
    await releaseEncoder();
    throw new ModelIntegrityError(
      `model "${entry.id}": trained on ${f.encoder} (${head.dim}-d), installed encoder is ${encoder.id} (${encoder.dim}-d)`,
    );
  }
  return {
    entry,
    release: releaseEncoder,
    async scoreBatch(texts: string[]): Promise<number[]> {
      const perText = texts.map((t) => pooledWindows(encoder.tokenize(t), f.window_tokens, f.max_windows));
      const flat = await embedCached(encoder, perText.flat());
      const pooled = new Float32Array(encoder.dim);
      let k = 0;
      return perText.map((ws) => {
        const score = headScore(head, maxPool(flat.slice(k, k + ws.length), pooled));
        k += ws.length;
        return score;
      });
    },
  };
}

/** This thread's encoder, shared by its semantic heads (reference-counted), and its window-embedding LRU. */
let shared: { encoder: Promise<SentenceEncoder>; refs: number } | null = null;
/** Window embeddings kept per thread (512 floats each: 256 windows ≈ 0.5 MB); `SEMANTIC_WINDOW_CACHE`. */
let windowCacheSize = 256;
const windowCache = new Map<string, Float32Array>();
/** Window lookups of this thread's LRU since start (for tests and benchmarks). */
export const windowCacheStats = { hits: 0, misses: 0 };

/** Sets this thread's window-cache size (0: every window is embedded each time it is asked for). */
export function setWindowCacheSize(n: number): void {
  windowCacheSize = Math.max(0, Math.floor(n));
  if (windowCacheSize === 0) windowCache.clear();
}

/** The precision this thread's encoder is built in (`ENCODER_PRECISION`); the heads were trained on fp32. */
let encoderPrecision: EncoderPrecision = 'fp32';

/** Sets the precision of the encoder this thread loads next (one already loaded keeps its own). */
export function setEncoderPrecision(precision: EncoderPrecision): void {
  encoderPrecision = precision;
}

async function acquireEncoder(): Promise<SentenceEncoder> {
  if (!shared) {
    const s = { encoder: loadSentenceEncoder({ batchRows: 16, precision: encoderPrecision }), refs: 0 };
    shared = s;
    // a failed load is not kept: the next head tries again
    s.encoder.catch(() => {
      if (shared === s) shared = null;
    });
  }
  shared.refs++;
  return shared.encoder;
}

async function releaseEncoder(): Promise<void> {
  const s = shared;
  if (!s || --s.refs > 0) return;
  shared = null;
  windowCache.clear();
  await (await s.encoder).release();
}

/** The embeddings of `rows` (token windows), each window embedded once per thread while it stays in the LRU. */
export async function embedCached(encoder: SentenceEncoder, rows: readonly number[][]): Promise<Float32Array[]> {
  const keys = rows.map((r) => r.join(','));
  /** each window this call needs and the cache lacks, with its ids (once, however often it repeats) */
  const missing = new Map<string, number[]>();
  keys.forEach((k, i) => {
    if (!windowCache.has(k) && !missing.has(k)) missing.set(k, rows[i]!);
  });
  windowCacheStats.misses += missing.size;
  windowCacheStats.hits += keys.length - missing.size;
  if (missing.size) {
    const ids = [...missing.values()];
    const got = await encoder.embedIds(ids);
    [...missing.keys()].forEach((k, i) => windowCache.set(k, got[i]!));
  }
  const out = keys.map((k) => {
    const v = windowCache.get(k)!;
    windowCache.delete(k); // most recently used last
    windowCache.set(k, v);
    return v;
  });
  for (const k of windowCache.keys()) {
    if (windowCache.size <= windowCacheSize) break;
    windowCache.delete(k);
  }
  return out;
}
