/**
 * The `onnx` token classifier (pii-ner): hashed token features in, per-token label probabilities
 * out, decoded into entities with UTF-16 offsets.
 */
import { checkKind, MODELS_DIR, type ModelEntry } from './manifest.ts';
import { bagMlpServingGraph, type BagGraph } from './bag-mlp-graph.ts';
import { createSession, toInt64 } from './onnx-session.ts';
import { tokenize, TokenFeaturizer, type Token, type TokenFeaturizerConfig } from './token-features.ts';

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
  checkKind(entry, 'token-classification', 'onnx');
  // a v2 featurizer reads its gazetteer from the same dir, sha256-checked like the model file
  const featurizer = new TokenFeaturizer(entry.featurizer as unknown as TokenFeaturizerConfig, undefined, dir);
  const L = featurizer.config.max_features;
  const F = featurizer.featuresPerToken;
  // Every slot of every row holds a feature of value 1/sqrt(F) (no padding slots): the serving graph
  // sums the rows and scales once, with no weights input (bag-mlp-graph.ts).
  let graph: BagGraph | null = null;
  const { ort, session } = await createSession(entry, dir, (bytes) => {
    if (L === F) graph = bagMlpServingGraph(bytes, { kind: 'constant', value: Math.fround(1 / Math.sqrt(F)) });
    return graph?.bytes ?? bytes;
  });
  const served = graph as BagGraph | null;
  const C = entry.labels.length;
  const outName = session.outputNames[0] ?? 'probs';
  // Scratch ids reused across calls (a call in flight keeps its own).
  let scratch = new Int32Array(0);
  let busy = false;
  return {
    release: () => session.release(),
    entry,
    async entitiesBatch(texts: string[]): Promise<Entity[][]> {
      const toks = texts.map((t) => tokenize(t));
      const T = toks.reduce((a, t) => a + t.length, 0);
      if (T === 0) return texts.map(() => []);
      const own = !busy;
      if (own && scratch.length < T * L) scratch = new Int32Array(Math.max(T * L, scratch.length * 2));
      const ids = own ? scratch.subarray(0, T * L) : new Int32Array(T * L);
      const values = served ? undefined : new Float32Array(T * L);
      if (!served) ids.fill(0);
      let row = 0;
      toks.forEach((tk, i) => {
        featurizer.featurize(texts[i] as string, tk, ids, values, row);
        row += tk.length;
      });
      if (own) busy = true;
      let out: Awaited<ReturnType<typeof session.run>>;
      try {
        out = await session.run(
          served
            ? { ids: new ort.Tensor('int32', ids, [T, L]) }
            : {
                ids: new ort.Tensor('int64', toInt64(ids), [T, L]),
                weights: new ort.Tensor('float32', values as Float32Array, [T, L]),
              },
        );
      } finally {
        if (own) busy = false;
      }
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
