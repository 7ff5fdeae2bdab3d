/**
 * Operator-supplied Hugging Face classifiers (inference/extra-models.ts) behind the interfaces every
 * served model offers: a text classifier (TextClassifier) and a token classifier (TokenClassifier).
 * One onnxruntime session per model (onnx-session.ts: 1 thread, model.onnx sha256-checked on load);
 * every text becomes overlapping token windows (hf-tokenizer.ts), and all windows of all texts of a
 * call go through the session in runs of similar length (hf-batch.ts).
 */
import type { InferenceSession } from 'onnxruntime-node';
import type { TextClassifier } from './classifier.ts';
import type { ExtraModel } from './extra-models.ts';
import {
  buildFeeds,
  inputSpecs,
  ownedRanges,
  planRuns,
  positiveScore,
  softmaxInto,
  type InputSpec,
} from './hf-batch.ts';
import { aggregateEntities } from './hf-entities.ts';
import { loadHfTokenizer, type HfEncoding, type HfTokenizer, type HfWindow } from './hf-tokenizer.ts';
import { createSession, type Ort } from './onnx-session.ts';
import type { Entity, TokenClassifier } from './token-classifier.ts';

interface Loaded {
  ort: Ort;
  session: InferenceSession;
  specs: InputSpec[];
  outName: string;
  tokenizer: HfTokenizer;
}

/** @throws Error on a task mismatch, a tokenizer the library cannot build, or a model.onnx onnxruntime refuses or whose inputs it cannot feed */
async function open(model: ExtraModel, task: ExtraModel['task']): Promise<Loaded> {
  if (model.task !== task) throw new Error(`model "${model.name}" is ${model.task}, not ${task}`);
  const tokenizer = loadHfTokenizer(model);
  const { ort, session } = await createSession(model.entry, model.dir);
  try {
    const specs = inputSpecs(session);
    const outName = session.outputNames.includes('logits') ? 'logits' : (session.outputNames[0] as string);
    return { ort, session, specs, outName, tokenizer };
  } catch (err) {
    await session.release();
    throw new Error(`model "${model.name}": ${(err as Error).message}`, { cause: err });
  }
}

interface Row {
  text: number;
  window: number;
  ids: Int32Array;
}

/** Every window of every text, and the texts' encodings and windows. */
function windowRows(
  l: Loaded,
  model: ExtraModel,
  texts: readonly string[],
): { encodings: HfEncoding[]; windows: HfWindow[][]; rows: Row[] } {
  const encodings = texts.map((t) => l.tokenizer.encode(t));
  const windows = encodings.map((e) => l.tokenizer.windows(e.ids, model.maxTokens, model.strideTokens));
  const rows: Row[] = [];
  windows.forEach((ws, text) => ws.forEach((w, window) => rows.push({ text, window, ids: w.ids })));
  return { encodings, windows, rows };
}

/**
 * Runs `rows` through the session in runs of similar length; calls `each(row, logits, offset, width)`
 * for every row with the run's output and where the row's logits start.
 * @throws Error when the output is not [batch, labels] or [batch, 1] (text), [batch, tokens, labels] (token)
 */
async function runRows(
  l: Loaded,
  model: ExtraModel,
  rows: readonly Row[],
  perToken: boolean,
  each: (row: Row, logits: Float32Array, offset: number, C: number, width: number) => void,
): Promise<void> {
  const C = model.labels.length;
  for (const run of planRuns(rows.map((r) => r.ids.length))) {
    const batch = run.map((i) => rows[i] as Row);
    const { feeds, width } = buildFeeds(
      l.ort,
      l.specs,
      batch.map((r) => r.ids),
      l.tokenizer.padId,
    );
    const out = (await l.session.run(feeds))[l.outName];
    if (!out) throw new Error(`model "${model.name}": no output ${l.outName}`);
    const dims = out.dims;
    const got = dims[dims.length - 1] as number;
    const okShape = perToken
      ? dims.length === 3 && dims[1] === width && got === C
      : dims.length === 2 && (got === C || got === 1);
    if (!okShape)
      throw new Error(
        `model "${model.name}": output ${l.outName} has shape [${dims.join(', ')}], expected [batch, ${perToken ? 'tokens, ' : ''}${C}] (config.json's labels)`,
      );
    const logits = out.data as Float32Array;
    batch.forEach((r, k) => each(r, logits, perToken ? k * width * got : k * got, got, width));
  }
}

/**
 * A text classifier: per text, the max over its windows of the summed softmax probability of the
 * model's positive labels (a single-logit model: its sigmoid); 0 for a text without tokens.
 * @throws Error / ModelIntegrityError when the model cannot be loaded (the caller serves without it)
 */
export async function loadHfTextClassifier(model: ExtraModel): Promise<TextClassifier> {
  const l = await open(model, 'text-classification');
  return {
    entry: model.entry,
    release: () => l.session.release(),
    async scoreBatch(texts: string[]): Promise<number[]> {
      const scores = new Array<number>(texts.length).fill(0);
      const { rows } = windowRows(l, model, texts);
      await runRows(l, model, rows, false, (r, logits, off, C) => {
        const s = positiveScore(logits, off, C, model.positive);
        if (s > (scores[r.text] as number)) scores[r.text] = s;
      });
      return scores;
    },
  };
}

/**
 * A token classifier: per text, its entities (UTF-16 offsets into it), types mapped through
 * `model.entities` (others dropped), those under `model.minConfidence` dropped. Where windows overlap,
 * each token takes the probabilities of the window it lies farther from the edge of.
 * @throws Error / ModelIntegrityError when the model cannot be loaded (the caller serves without it)
 */
export async function loadHfTokenClassifier(model: ExtraModel): Promise<TokenClassifier> {
  const l = await open(model, 'token-classification');
  const C = model.labels.length;
  const prefix = l.tokenizer.prefix.length;
  return {
    entry: model.entry,
    release: () => l.session.release(),
    async entitiesBatch(texts: string[]): Promise<Entity[][]> {
      const { encodings, windows, rows } = windowRows(l, model, texts);
      const probs = encodings.map((e) => new Float32Array(e.ids.length * C));
      const owned = windows.map(ownedRanges);
      await runRows(l, model, rows, true, (r, logits, off) => {
        const w = (windows[r.text] as HfWindow[])[r.window] as HfWindow;
        const { from, to } = (owned[r.text] as { from: number; to: number }[])[r.window] as { from: number; to: number }; // prettier-ignore
        const p = probs[r.text] as Float32Array;
        for (let t = from; t < to; t++) softmaxInto(logits, off + (prefix + t - w.first) * C, C, p, t * C);
      });
      return texts.map((text, i) => {
        const e = encodings[i] as HfEncoding;
        const out: Entity[] = [];
        for (const ent of aggregateEntities(text, e.starts, e.ends, probs[i] as Float32Array, model.labels)) {
          const label = model.entities[ent.type];
          if (label === undefined || ent.confidence < model.minConfidence) continue;
          out.push({ start: ent.start, end: ent.end, label, confidence: ent.confidence });
        }
        return out;
      });
    },
  };
}
