/**
 * `use-lite-head-v1` classifiers (pi-semantic): the pretrained sentence encoder (`sentence-encoder.ts`)
 * embeds the text in windows of `window_tokens` SentencePiece tokens (the first and last `max_windows / 2`
 * windows of longer text), the embeddings are max-pooled per dimension, and a logistic head
 * (`logistic-head.ts`, the entry's JSON file) scores the pooled vector. Training
 * (`training/trainers/pi-semantic.ts`) pools the same way, so a text scores the same in both.
 */
import type { TextClassifier } from './classifier.ts';
import { headScore, parseHead } from './logistic-head.ts';
import { checkKind, MODELS_DIR, ModelIntegrityError, readVerified, type ModelEntry } from './manifest.ts';
import { loadSentenceEncoder } from './sentence-encoder.ts';
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
  const encoder = await loadSentenceEncoder({ batchRows: 16 });
  if (encoder.id !== f.encoder || head.dim !== encoder.dim) {
    await encoder.release();
    throw new ModelIntegrityError(
      `model "${entry.id}": trained on ${f.encoder} (${head.dim}-d), installed encoder is ${encoder.id} (${encoder.dim}-d)`,
    );
  }
  return {
    entry,
    release: () => encoder.release(),
    async scoreBatch(texts: string[]): Promise<number[]> {
      const perText = texts.map((t) => pooledWindows(encoder.tokenize(t), f.window_tokens, f.max_windows));
      const flat = await encoder.embedIds(perText.flat());
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
