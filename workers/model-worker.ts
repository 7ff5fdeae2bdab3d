/**
 * The model worker: runs in each Piscina thread, loads its models once at start (one
 * onnxruntime-node session per model per thread), then answers inference tasks in batches.
 */
import { setPriority } from 'node:os';
import { workerData } from 'piscina';
import { loadCharLm, type CharLm } from '../inference/char-lm.ts';
import { modelEntry } from '../inference/manifest.ts';
import type { TextClassifier } from '../inference/classifier.ts';
import { loadHfTextClassifier, loadHfTokenClassifier } from '../inference/hf-classifier.ts';
import { setEncoderPrecision, setWindowCacheSize } from '../inference/semantic-classifier.ts';
import { loadOnnxClassifier } from '../inference/text-classifier.ts';
import { loadOnnxTokenClassifier, type TokenClassifier } from '../inference/token-classifier.ts';
import type { PartTiming } from './inference-costs.ts';
import {
  CRASH_MARKER,
  type InferencePart,
  type ModelReply,
  type ModelTask,
  type PartReply,
  type WorkerConfig,
} from './protocol.ts';

const config = workerData as WorkerConfig;
// Linux keeps a nice value per thread: this lowers this model thread only, never the event loop's.
if (config.nice) {
  try {
    setPriority(config.nice);
  } catch {
    // a platform that cannot: the thread runs at the process's priority
  }
}
if (config.windowCache !== undefined) setWindowCacheSize(config.windowCache);
if (config.encoderPrecision !== undefined) setEncoderPrecision(config.encoderPrecision);
const classifiers = new Map<string, TextClassifier>();
const taggers = new Map<string, TokenClassifier>();
const charLms = new Map<string, CharLm>();
const failed = new Map<string, string>();

// Top-level await: Piscina reports the thread ready only after this resolves, so models are loaded
// before the first task reaches the thread.
await Promise.all([
  ...config.models.map(async (id) => {
    try {
      const entry = modelEntry(id, config.modelsDir);
      if (entry.runtime === 'js-char-lm') charLms.set(id, loadCharLm(entry, config.modelsDir));
      else if (entry.task === 'token-classification')
        taggers.set(id, await loadOnnxTokenClassifier(entry, config.modelsDir));
      else classifiers.set(id, await loadOnnxClassifier(entry, config.modelsDir));
    } catch (err) {
      failed.set(id, (err as Error).message);
    }
  }),
  // the operators' models (EXTRA_MODELS_DIR), under their names, in the same maps: one pool serves all
  ...(config.extraModels ?? []).map(async (m) => {
    try {
      if (m.task === 'token-classification') taggers.set(m.name, await loadHfTokenClassifier(m));
      else classifiers.set(m.name, await loadHfTextClassifier(m));
    } catch (err) {
      failed.set(m.name, (err as Error).message);
    }
  }),
]);

function notLoaded(model: string): PartReply {
  return {
    ok: false,
    code: 'model_not_loaded',
    message: failed.get(model) ?? `model ${model} is not loaded in this worker`,
  };
}

/** Holds this thread until `threads` tasks sharing the barrier are running at once (one per thread). */
function barrier(task: { barrier: SharedArrayBuffer; threads: number; timeoutMs: number }): boolean {
  const counter = new Int32Array(task.barrier);
  Atomics.add(counter, 0, 1);
  Atomics.notify(counter, 0);
  const deadline = Date.now() + task.timeoutMs;
  while (Atomics.load(counter, 0) < task.threads) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    Atomics.wait(counter, 0, Atomics.load(counter, 0), Math.min(left, 50));
  }
  return true;
}

// Characters of warm-up text per model: 16 full windows of the sentence encoder, 18 of pi-accurate —
// enough to time each model per character (the dispatcher's first slice sizes) and to size its buffers.
const WARMUP_CHARS = 8_000;
const WARMUP_WORDS = ['report', 'quarterly', 'Paris', 'Ignore', 'instructions', 'ssh', 'invoice', 'Dana', 'revenue'];

/**
 * Texts of `maxChars` characters (one model window each) adding up to WARMUP_CHARS, all different,
 * so the sentence encoder's window cache does not fold them into one.
 */
function warmupDocument(maxChars: number, variant = 0): string[] {
  const n = Math.max(2, Math.ceil(WARMUP_CHARS / Math.max(1, maxChars)));
  return Array.from({ length: n }, (_, t) => {
    let text = '';
    for (let i = 0; text.length < maxChars; i++)
      text += `${WARMUP_WORDS[(i * 7 + t + variant) % WARMUP_WORDS.length]}${(i * 31 + t * 17 + variant) % 1000} `;
    return text.slice(0, maxChars);
  });
}

async function infer(part: InferencePart): Promise<PartReply> {
  try {
    if (part.op === 'classify') {
      const model = classifiers.get(part.model);
      return model ? { ok: true, scores: await model.scoreBatch(part.texts) } : notLoaded(part.model);
    }
    if (part.op === 'suffix') {
      const lm = charLms.get(part.model);
      return lm ? { ok: true, windows: part.texts.map((t) => lm.score(t)) } : notLoaded(part.model);
    }
    const model = taggers.get(part.model);
    return model ? { ok: true, entities: await model.entitiesBatch(part.texts) } : notLoaded(part.model);
  } catch (err) {
    return { ok: false, code: 'inference_failed', message: (err as Error).message };
  }
}

export default async function run(task: ModelTask): Promise<ModelReply> {
  switch (task.op) {
    case 'infer': {
      if (config.allowCrashTask && task.parts.some((p) => p.texts.some((t) => t.includes(CRASH_MARKER))))
        process.exit(1);
      const parts: PartReply[] = [];
      for (const part of task.parts) {
        const started = performance.now();
        const reply = await infer(part);
        parts.push(reply.ok ? { ...reply, ms: performance.now() - started } : reply);
      }
      return { ok: true, parts };
    }
    case 'release': {
      if (!barrier(task))
        return { ok: false, code: 'warmup_timeout', message: 'not every worker thread took its release task in time' };
      const all = [...classifiers.values(), ...taggers.values()];
      classifiers.clear();
      taggers.clear();
      await Promise.all(all.map((m) => m.release()));
      return { ok: true, released: all.length };
    }
    case 'warmup': {
      // Block this thread until every thread holds a warm-up task: then each one has loaded.
      if (!barrier(task))
        return { ok: false, code: 'warmup_timeout', message: 'not every worker thread started in time' };
      // Run each model once so the first real request does not pay for lazy initialisation, then once
      // more at a long document's shapes (full-length windows, several to a batch):
      // onnxruntime sizes its buffers on the first run of a shape, which cost the first long request
      // after start-up seconds.
      for (const m of classifiers.values()) await m.scoreBatch(['warm up']);
      for (const m of taggers.values()) await m.entitiesBatch(['Warm up in Paris']);
      // Timed: the dispatcher's first estimate of each model's cost per character.
      const timings: PartTiming[] = [];
      const timed = async (op: InferencePart['op'], model: string, texts: string[], run: () => Promise<unknown>) => {
        const started = performance.now();
        await run();
        timings.push({ op, model, texts: texts.length, chars: texts.join('').length, ms: performance.now() - started });
      };
      // A second document of the same shapes is timed: the first paid for sizing buffers (and another
      // text keeps the encoder's window cache out of the timing).
      for (const [id, m] of classifiers) {
        await m.scoreBatch(warmupDocument(m.entry.max_chars));
        const doc = warmupDocument(m.entry.max_chars, 1);
        await timed('classify', id, doc, () => m.scoreBatch(doc));
      }
      for (const [id, m] of taggers) {
        await m.entitiesBatch(warmupDocument(m.entry.max_chars));
        const doc = warmupDocument(m.entry.max_chars, 1);
        await timed('entities', id, doc, () => m.entitiesBatch(doc));
      }
      for (const [id, lm] of charLms) {
        // JavaScript, not onnxruntime: several untimed passes first, or the timing is the compiler's (10×).
        const doc = warmupDocument(1_000);
        for (let pass = 0; pass < 8; pass++) doc.forEach((t) => lm.score(t));
        await timed('suffix', id, doc, async () => doc.forEach((t) => lm.score(t)));
      }
      return {
        ok: true,
        loaded: [...classifiers.keys(), ...taggers.keys(), ...charLms.keys()],
        timings,
        ...(failed.size ? { failed: Object.fromEntries(failed) } : {}),
      };
    }
    default:
      return { ok: false, code: 'bad_task', message: 'unknown task' };
  }
}
