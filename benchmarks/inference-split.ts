/**
 * Where a model thread's time goes for pii-ner and toxicity (the models every scan runs), per 1,000
 * characters: batches of 1,000-character texts as the pool sends them (one text, and 16 texts in one
 * task), split into tokenisation, featurisation, the onnxruntime run (tensors included), decoding, and
 * the structured clone of the task and its reply (what postMessage does on each side), next to the
 * loader's whole call. The components rebuild the loaders' steps from the same exported pieces
 * (the serving graph of bag-mlp-graph.ts, int32 ids); medians over interleaved rounds.
 */
import { bagMlpServingGraph } from '../inference/bag-mlp-graph.ts';
import { MODELS_DIR, modelEntry } from '../inference/manifest.ts';
import { createSession } from '../inference/onnx-session.ts';
import { loadOnnxClassifier } from '../inference/text-classifier.ts';
import { TextFeaturizer, type TextFeaturizerConfig } from '../inference/text-features.ts';
import { decodeEntities, loadOnnxTokenClassifier, type Entity } from '../inference/token-classifier.ts';
import { tokenize, TokenFeaturizer, type Token, type TokenFeaturizerConfig } from '../inference/token-features.ts';

const ROUNDS = 7;
const CHARS_PER_ROUND = 160_000;

/** Prints µs per 1,000 characters per component for batches of 1 and 16 of `texts` (1,000 chars each). */
export async function printSplit(texts: string[]): Promise<void> {
  const ner = modelEntry('pii-ner');
  const tox = modelEntry('toxicity');
  const nerModel = await loadOnnxTokenClassifier(ner);
  const toxModel = await loadOnnxClassifier(tox);
  const featurizer = new TokenFeaturizer(ner.featurizer as unknown as TokenFeaturizerConfig, undefined, MODELS_DIR);
  const L = featurizer.config.max_features;
  const C = ner.labels.length;
  const scale = Math.fround(1 / Math.sqrt(featurizer.featuresPerToken));
  const { ort, session } = await createSession(
    ner,
    MODELS_DIR,
    (b) => bagMlpServingGraph(b, { kind: 'constant', value: scale })?.bytes ?? b,
  );
  const textFeaturizer = new TextFeaturizer(tox.featurizer as unknown as TextFeaturizerConfig);
  const toxSession = (
    await createSession(tox, MODELS_DIR, (b) => bagMlpServingGraph(b, { kind: 'weighted' })?.bytes ?? b)
  ).session;

  for (const B of [1, 16]) {
    let k = 0;
    const next = (): string[] => {
      const start = (k++ * B) % (texts.length - B);
      return texts.slice(start, start + B);
    };
    const samples: Record<string, number[]> = {};
    const time = async (name: string, fn: (batch: string[]) => unknown): Promise<void> => {
      for (let w = 0; w < 3; w++) await fn(next());
      const reps = Math.max(3, Math.round(CHARS_PER_ROUND / 1000 / B));
      let ns = 0n;
      for (let r = 0; r < reps; r++) {
        const batch = next();
        const t = process.hrtime.bigint();
        await fn(batch);
        ns += process.hrtime.bigint() - t;
      }
      (samples[name] ??= []).push(Number(ns) / 1e3 / (reps * B));
    };
    const featurize = (batch: string[]): { toks: Token[][]; ids: Int32Array; T: number } => {
      const toks = batch.map((t) => tokenize(t));
      const T = toks.reduce((a, t) => a + t.length, 0);
      const ids = new Int32Array(T * L);
      let row = 0;
      toks.forEach((tk, i) => {
        featurizer.featurize(batch[i] as string, tk, ids, undefined, row);
        row += tk.length;
      });
      return { toks, ids, T };
    };
    for (let round = 0; round < ROUNDS; round++) {
      await time('pii-ner  whole entitiesBatch', (b) => nerModel.entitiesBatch(b));
      await time('pii-ner  tokenize', (b) => b.map((t) => tokenize(t)));
      await time('pii-ner  tokenize + featurize', featurize);
      // onnxruntime and decoding on batches featurised beforehand, a different one each call (the
      // embedding rows a batch gathers are not left in cache by the previous call)
      const ready = Array.from({ length: 24 }, () => featurize(next()));
      const runs = await Promise.all(
        ready.map(async (f) => {
          const out = await session.run({ ids: new ort.Tensor('int32', f.ids, [f.T, L]) });
          return out.probs?.data as Float32Array;
        }),
      );
      let r = 0;
      await time('pii-ner  onnxruntime run', () => {
        const f = ready[r++ % ready.length]!;
        return session.run({ ids: new ort.Tensor('int32', f.ids, [f.T, L]) });
      });
      const decodeAll = (i: number): Entity[][] => {
        let off = 0;
        return ready[i]!.toks.map((tk) => {
          const e = decodeEntities(tk, runs[i]!, off * C, ner.labels);
          off += tk.length;
          return e;
        });
      };
      await time('pii-ner  decode', () => decodeAll(r++ % ready.length));
      const entities = decodeAll(0);
      await time('pii-ner  message clone (task + reply)', (b) => {
        structuredClone({ op: 'infer', parts: [{ op: 'entities', model: ner.id, texts: b }] });
        structuredClone({ ok: true, parts: [{ ok: true, entities }] });
      });
      await time('toxicity whole scoreBatch', (b) => toxModel.scoreBatch(b));
      await time('toxicity featurize (bags)', (b) => b.forEach((t) => textFeaturizer.bag(t)));
      const bags = Array.from({ length: 24 }, () => bagMatrix(textFeaturizer, next()));
      await time('toxicity onnxruntime run', () => {
        const m = bags[r++ % bags.length]!;
        return toxSession.run({
          ids: new ort.Tensor('int32', m.ids, [m.N, m.L]),
          weights: new ort.Tensor('float32', m.values, [m.N, m.L]),
        });
      });
      await time('toxicity message clone (task + reply)', (b) => {
        structuredClone({ op: 'infer', parts: [{ op: 'classify', model: tox.id, texts: b }] });
        structuredClone({ ok: true, parts: [{ ok: true, scores: b.map(() => 0.5) }] });
      });
    }
    console.log(`\nµs per 1,000 characters, batch of ${B} × 1,000 chars (median of ${ROUNDS} rounds, min..max):`);
    for (const [name, v] of Object.entries(samples)) {
      const s = [...v].sort((a, b) => a - b);
      const med = s[Math.floor(s.length / 2)] as number;
      console.log(
        `  ${name.padEnd(40)} ${med.toFixed(1).padStart(7)}  (${(s[0] as number).toFixed(1)}..${(s[s.length - 1] as number).toFixed(1)})`,
      );
    }
  }
  await Promise.all([nerModel.release(), toxModel.release(), session.release(), toxSession.release()]);
}

/** The texts' bags padded to the longest, as text-classifier.ts feeds them. */
function bagMatrix(
  f: TextFeaturizer,
  texts: string[],
): { ids: Int32Array; values: Float32Array; N: number; L: number } {
  const rows = texts.map((t) => {
    const n = f.bag(t);
    return { ids: f.ids.slice(0, n), values: f.values.slice(0, n) };
  });
  const L = Math.max(1, ...rows.map((r) => r.ids.length));
  const ids = new Int32Array(rows.length * L);
  const values = new Float32Array(rows.length * L);
  rows.forEach((r, k) => {
    ids.set(r.ids, k * L);
    values.set(r.values, k * L);
  });
  return { ids, values, N: rows.length, L };
}
