/**
 * `onnx` text classifiers (toxicity, pi-accurate), run by onnxruntime-node. The featurizer type picks
 * the input side: `hashed-text-v1` (toxicity: embedding-bag MLP over hashed n-grams) or `wordpiece-v1`
 * (pi-accurate: subword ids into a small transformer encoder, tokenizer file listed in the entry) or
 * `use-lite-head-v1` (pi-semantic: the pretrained sentence encoder + a logistic head, `semantic-classifier.ts`).
 */
import { checkKind, MODELS_DIR, readVerified, type ModelEntry } from './manifest.ts';
import type { TextClassifier } from './classifier.ts';
import { bagMlpServingGraph, type BagGraph } from './bag-mlp-graph.ts';
import { createSession, toInt64 } from './onnx-session.ts';
import { loadSemanticClassifier, SEMANTIC_FEATURIZER } from './semantic-classifier.ts';
import { TextFeaturizer, type TextFeaturizerConfig } from './text-features.ts';
import { tokenRows, WordPieceTokenizer, type WordPieceConfig } from './wordpiece.ts';

export async function loadOnnxClassifier(entry: ModelEntry, dir: string = MODELS_DIR): Promise<TextClassifier> {
  checkKind(entry, 'text-classification', 'onnx');
  if (entry.featurizer.type === 'wordpiece-v1') return loadTransformerClassifier(entry, dir);
  if (entry.featurizer.type === SEMANTIC_FEATURIZER) return loadSemanticClassifier(entry, dir);
  // Served as a batched MatMul over int32 ids (bag-mlp-graph.ts); the artifact's graph if it is not a bag MLP.
  let graph: BagGraph | null = null;
  const { ort, session } = await createSession(entry, dir, (bytes) => {
    graph = bagMlpServingGraph(bytes, { kind: 'weighted' });
    return graph?.bytes ?? bytes;
  });
  const int32 = (graph as BagGraph | null) !== null;
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
        ids: int32 ? new ort.Tensor('int32', ids, [N, L]) : new ort.Tensor('int64', toInt64(ids), [N, L]),
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
