/**
 * Serving the detection models listed in `models/manifest.json`.
 *
 * - `js-linear` (pi-fast): hashed-feature logistic regression, scored in-process in pure TS.
 * - `onnx` text classifiers and the token classifier (pii-ner), run by onnxruntime-node, one
 *   InferenceSession each (1 intra-op / 1 inter-op thread: the engine parallelises across worker
 *   threads, not inside a session). The featurizer type picks the input side: `hashed-text-v1`
 *   (toxicity: embedding-bag MLP over hashed n-grams) or `wordpiece-v1` (pi-accurate: subword ids
 *   into a small transformer encoder, tokenizer file listed in the entry).
 *
 * Every loader checks the sha256 of the model file (and of the tokenizer file) against the manifest.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as OrtTypes from 'onnxruntime-node';
import {
  TextFeaturizer,
  TokenFeaturizer,
  tokenize,
  type TextFeaturizerConfig,
  type Token,
  type TokenFeaturizerConfig,
} from './features.ts';
import { tokenRows, WordPieceTokenizer, type WordPieceConfig } from './wordpiece.ts';

export interface ModelEntry {
  id: string;
  version: string;
  task: 'text-classification' | 'token-classification';
  runtime: 'js-linear' | 'onnx';
  file: string;
  sha256: string;
  featurizer: Record<string, unknown>;
  labels: string[];
  max_chars: number;
  /** Subword vocabulary file of `wordpiece-v1` models, hash-checked like the model file. */
  tokenizer?: { file: string; sha256: string };
  /**
   * The detector's score is the mean of this model's score and model `with`'s score (each the max over
   * its own windows); `thresholds` then apply to that mean.
   */
  combine?: { with: string; method: 'mean' };
  thresholds?: { warn_above: number; flag_above: number; block_above: number };
  metrics?: Record<string, unknown>;
}

/** Absolute path of the artifacts directory (`models/` at the repository root). */
export const MODELS_DIR: string = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'models');

export function readManifest(dir: string = MODELS_DIR): { models: ModelEntry[] } {
  const raw = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { models?: unknown };
  if (!raw || !Array.isArray(raw.models)) throw new Error(`${path.join(dir, 'manifest.json')}: no "models" array`);
  return { models: raw.models as ModelEntry[] };
}

export function modelEntry(id: string, dir: string = MODELS_DIR): ModelEntry {
  const e = readManifest(dir).models.find((m) => m.id === id);
  if (!e) throw new Error(`model "${id}" is not in ${path.join(dir, 'manifest.json')}`);
  return e;
}

export class ModelIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelIntegrityError';
  }
}

/** Reads the model file (or another file of the entry) and checks its sha256 against the manifest entry. */
function readVerified(entry: ModelEntry, dir: string, asset: { file: string; sha256: string } = entry): Buffer {
  const file = path.resolve(dir, asset.file);
  const bytes = readFileSync(file);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== asset.sha256) {
    throw new ModelIntegrityError(`model "${entry.id}": sha256 of ${file} is ${got}, manifest says ${asset.sha256}`);
  }
  return bytes;
}

function expect(entry: ModelEntry, task: ModelEntry['task'], runtime: ModelEntry['runtime']): void {
  if (entry.task !== task || entry.runtime !== runtime) {
    throw new Error(`model "${entry.id}" is ${entry.task}/${entry.runtime}, expected ${task}/${runtime}`);
  }
}

// ---------------------------------------------------------------------------------------------
// js-linear

export interface LinearModel {
  readonly entry: ModelEntry;
  /** Probability-like score in [0, 1]; 0 for text without features (empty or blank). */
  score(text: string): number;
}

/**
 * File layout: little-endian float32 weights[buckets] followed by one float32 bias.
 * score = sigmoid(bias + sum over emitted features of w[bucket] / sqrt(n)).
 */
export function loadLinearModel(entry: ModelEntry, dir: string = MODELS_DIR): LinearModel {
  expect(entry, 'text-classification', 'js-linear');
  const bytes = readVerified(entry, dir);
  const cfg = entry.featurizer as unknown as TextFeaturizerConfig;
  const featurizer = new TextFeaturizer(cfg);
  const B = cfg.buckets;
  if (bytes.length !== (B + 1) * 4)
    throw new ModelIntegrityError(`model "${entry.id}": expected ${(B + 1) * 4} bytes, got ${bytes.length}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const w = new Float32Array(B);
  for (let i = 0; i < B; i++) w[i] = dv.getFloat32(i * 4, true);
  const bias = dv.getFloat32(B * 4, true);
  return {
    entry,
    score(text: string): number {
      const n = featurizer.hashes(text);
      if (n === 0) return 0;
      const raw = featurizer.raw;
      // four accumulators: independent adds instead of one long dependency chain
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let k = 0;
      for (; k + 3 < n; k += 4) {
        s0 += w[raw[k] as number] as number;
        s1 += w[raw[k + 1] as number] as number;
        s2 += w[raw[k + 2] as number] as number;
        s3 += w[raw[k + 3] as number] as number;
      }
      for (; k < n; k++) s0 += w[raw[k] as number] as number;
      return 1 / (1 + Math.exp(-(bias + (s0 + s1 + (s2 + s3)) / Math.sqrt(n))));
    },
  };
}

// ---------------------------------------------------------------------------------------------
// onnx

type Ort = typeof OrtTypes;
let ortPromise: Promise<Ort> | undefined;
function loadOrt(): Promise<Ort> {
  ortPromise ??= import('onnxruntime-node') as Promise<Ort>;
  return ortPromise;
}

async function createSession(
  entry: ModelEntry,
  dir: string,
): Promise<{ ort: Ort; session: OrtTypes.InferenceSession }> {
  const bytes = readVerified(entry, dir);
  const ort = await loadOrt();
  const session = await ort.InferenceSession.create(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  return { ort, session };
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** int64 tensor data from non-negative int32 ids without per-element BigInt conversion. */
function toInt64(ids: Int32Array): BigInt64Array {
  const out = new BigInt64Array(ids.length);
  if (LITTLE_ENDIAN) {
    const v = new Int32Array(out.buffer);
    for (let i = 0; i < ids.length; i++) v[i * 2] = ids[i] as number;
  } else {
    for (let i = 0; i < ids.length; i++) out[i] = BigInt(ids[i] as number);
  }
  return out;
}

export interface TextClassifier {
  readonly entry: ModelEntry;
  /** One score in [0, 1] per text, in one session run; 0 for texts without features. */
  scoreBatch(texts: string[]): Promise<number[]>;
  /** Frees the native session; call before the thread ends (onnxruntime aborts the process otherwise). */
  release(): Promise<void>;
}

export async function loadOnnxClassifier(entry: ModelEntry, dir: string = MODELS_DIR): Promise<TextClassifier> {
  expect(entry, 'text-classification', 'onnx');
  if (entry.featurizer.type === 'wordpiece-v1') return loadTransformerClassifier(entry, dir);
  const { ort, session } = await createSession(entry, dir);
  const featurizer = new TextFeaturizer(entry.featurizer as unknown as TextFeaturizerConfig);
  const outName = session.outputNames[0] ?? 'scores';
  return {
    entry,
    release: () => session.release(),
    async scoreBatch(texts: string[]): Promise<number[]> {
      const scores = new Array<number>(texts.length).fill(0);
      const rows: { i: number; ids: Int32Array; values: Float32Array }[] = [];
      let L = 0;
      for (let i = 0; i < texts.length; i++) {
        const n = featurizer.bag(texts[i] as string);
        if (n === 0) continue;
        rows.push({ i, ids: featurizer.ids.slice(0, n), values: featurizer.values.slice(0, n) });
        if (n > L) L = n;
      }
      if (rows.length === 0) return scores;
      const N = rows.length;
      const ids = new Int32Array(N * L);
      const values = new Float32Array(N * L);
      rows.forEach((r, k) => {
        ids.set(r.ids, k * L);
        values.set(r.values, k * L);
      });
      const out = await session.run({
        ids: new ort.Tensor('int64', toInt64(ids), [N, L]),
        weights: new ort.Tensor('float32', values, [N, L]),
      });
      const data = out[outName]?.data as Float32Array;
      rows.forEach((r, k) => {
        scores[r.i] = data[k] as number;
      });
      return scores;
    },
  };
}

/** Featurizer parameters of a `wordpiece-v1` entry. */
export interface WordPieceFeaturizer {
  type: 'wordpiece-v1';
  max_tokens: number;
  row_overlap_tokens: number;
}

/** Loads a `wordpiece-v1` tokenizer file, checking its sha256 against the entry. */
export function loadTokenizer(entry: ModelEntry, dir: string = MODELS_DIR): WordPieceTokenizer {
  if (!entry.tokenizer) throw new Error(`model "${entry.id}" has no tokenizer in the manifest`);
  const bytes = readVerified(entry, dir, entry.tokenizer);
  return new WordPieceTokenizer(JSON.parse(bytes.toString('utf8')) as WordPieceConfig);
}

/**
 * Transformer text classifier: each text becomes rows of at most `max_tokens` subword ids (a text
 * longer than that gets overlapping rows, so nothing goes unseen; its score is the max over its
 * rows); all rows of the batch go in one run, padded with 0 to the longest row.
 */
async function loadTransformerClassifier(entry: ModelEntry, dir: string): Promise<TextClassifier> {
  const f = entry.featurizer as unknown as WordPieceFeaturizer;
  const tokenizer = loadTokenizer(entry, dir);
  const { ort, session } = await createSession(entry, dir);
  const outName = session.outputNames[0] ?? 'scores';
  return {
    entry,
    release: () => session.release(),
    async scoreBatch(texts: string[]): Promise<number[]> {
      const scores = new Array<number>(texts.length).fill(0);
      const owner: number[] = [];
      const rows: number[][] = [];
      let L = 0;
      for (let i = 0; i < texts.length; i++) {
        for (const r of tokenRows(tokenizer.encode(texts[i] as string), f.max_tokens, f.row_overlap_tokens)) {
          rows.push(r);
          owner.push(i);
          if (r.length > L) L = r.length;
        }
      }
      if (rows.length === 0) return scores;
      const ids = new Int32Array(rows.length * L);
      rows.forEach((r, k) => ids.set(r, k * L));
      const out = await session.run({ input_ids: new ort.Tensor('int64', toInt64(ids), [rows.length, L]) });
      const data = out[outName]?.data as Float32Array;
      owner.forEach((i, k) => {
        scores[i] = Math.max(scores[i] as number, data[k] as number);
      });
      return scores;
    },
  };
}

export interface Entity {
  start: number;
  end: number;
  label: string;
  confidence: number;
}

export interface TokenClassifier {
  readonly entry: ModelEntry;
  /** Entities per text (UTF-16 offsets into that text); all tokens of all texts in one run. */
  entitiesBatch(texts: string[]): Promise<Entity[][]>;
  /** Frees the native session; call before the thread ends. */
  release(): Promise<void>;
}

const WORDISH = /[\p{L}\p{N}]/u;
const GLUE = new Set(['-', "'", '\u2019', '.', '&', '/']);

/**
 * Token labels -> entities:
 * 1. argmax label per token;
 * 2. a glue character ("-", "'", ".", "&", "/") labelled O but written without spaces between two
 *    tokens of the same label takes that label ("Fournier-Morin", "O'Brien"), and so does a comma
 *    between two ADDRESS tokens ("1 Main St, Springfield");
 * 3. a run of consecutive non-O tokens is split where the label changes across a line break or
 *    between two confident tokens (max prob >= 0.9 on both sides); each remaining segment takes the
 *    label with the largest summed probability over its tokens;
 * 4. each segment is one entity from its first token's start to its last token's end, punctuation-only
 *    tokens at either end dropped; confidence = mean of the tokens' max probabilities.
 */
export function decodeEntities(
  tokens: Token[],
  probs: ArrayLike<number>,
  probOffset: number,
  labels: string[],
  text?: string,
): Entity[] {
  const C = labels.length;
  const O = labels.indexOf('O');
  const n = tokens.length;
  const lab = new Int32Array(n);
  const conf = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const base = probOffset + t * C;
    let best = 0;
    let bp = probs[base] as number;
    for (let c = 1; c < C; c++) {
      const pc = probs[base + c] as number;
      if (pc > bp) {
        bp = pc;
        best = c;
      }
    }
    lab[t] = best;
    conf[t] = bp;
  }
  const ADDRESS = labels.indexOf('ADDRESS');
  for (let t = 1; t + 1 < n; t++) {
    const tok = tokens[t] as Token;
    if (lab[t] !== O || lab[t - 1] === O || lab[t - 1] !== lab[t + 1]) continue;
    const glued =
      GLUE.has(tok.text) && (tokens[t - 1] as Token).end === tok.start && tok.end === (tokens[t + 1] as Token).start;
    const addressComma = lab[t - 1] === ADDRESS && tok.text === ',';
    if (glued || addressComma) lab[t] = lab[t - 1] as number;
  }
  const out: Entity[] = [];
  const emit = (a: number, b: number): void => {
    // segment [a, b] of non-O tokens: majority label by summed probability
    let bestLabel = -1;
    let bestSum = -1;
    for (let c = 0; c < C; c++) {
      if (c === O) continue;
      let sum = 0;
      for (let t = a; t <= b; t++) sum += probs[probOffset + t * C + c] as number;
      if (sum > bestSum) {
        bestSum = sum;
        bestLabel = c;
      }
    }
    while (a <= b && !WORDISH.test((tokens[a] as Token).text)) a++;
    while (b >= a && !WORDISH.test((tokens[b] as Token).text)) b--;
    if (a > b) return;
    let cs = 0;
    for (let t = a; t <= b; t++) cs += conf[t] as number;
    out.push({
      start: (tokens[a] as Token).start,
      end: (tokens[b] as Token).end,
      label: labels[bestLabel] as string,
      confidence: cs / (b - a + 1),
    });
  };
  let t = 0;
  while (t < n) {
    if (lab[t] === O) {
      t++;
      continue;
    }
    let start = t;
    while (t + 1 < n && lab[t + 1] !== O) {
      const split =
        lab[t + 1] !== lab[t] &&
        (((conf[t] as number) >= 0.9 && (conf[t + 1] as number) >= 0.9) ||
          (text !== undefined && text.slice((tokens[t] as Token).end, (tokens[t + 1] as Token).start).includes('\n')));
      if (split) {
        emit(start, t);
        start = t + 1;
      }
      t++;
    }
    emit(start, t);
    t++;
  }
  return out;
}

export async function loadOnnxTokenClassifier(entry: ModelEntry, dir: string = MODELS_DIR): Promise<TokenClassifier> {
  expect(entry, 'token-classification', 'onnx');
  const { ort, session } = await createSession(entry, dir);
  const featurizer = new TokenFeaturizer(entry.featurizer as unknown as TokenFeaturizerConfig);
  const L = featurizer.config.max_features;
  const C = entry.labels.length;
  const outName = session.outputNames[0] ?? 'probs';
  return {
    release: () => session.release(),
    entry,
    async entitiesBatch(texts: string[]): Promise<Entity[][]> {
      const toks = texts.map((t) => tokenize(t));
      const T = toks.reduce((a, t) => a + t.length, 0);
      if (T === 0) return texts.map(() => []);
      const ids = new Int32Array(T * L);
      const values = new Float32Array(T * L);
      let row = 0;
      toks.forEach((tk, i) => {
        featurizer.featurize(texts[i] as string, tk, ids, values, row);
        row += tk.length;
      });
      const out = await session.run({
        ids: new ort.Tensor('int64', toInt64(ids), [T, L]),
        weights: new ort.Tensor('float32', values, [T, L]),
      });
      const probs = out[outName]?.data as Float32Array;
      const result: Entity[][] = [];
      let off = 0;
      for (const tk of toks) {
        result.push(decodeEntities(tk, probs, off * C, entry.labels, texts[result.length]));
        off += tk.length;
      }
      return result;
    },
  };
}
