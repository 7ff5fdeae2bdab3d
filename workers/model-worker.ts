/**
 * The model worker: runs in each Piscina thread, loads its models once at start (one
 * onnxruntime-node session per model per thread), then answers inference tasks in batches.
 */
import { workerData } from 'piscina';
import { loadOnnxClassifier, loadOnnxTokenClassifier, modelEntry, type TextClassifier, type TokenClassifier } from '../models/runtime.ts';
import { CRASH_MARKER, type ModelReply, type ModelTask, type WorkerConfig } from './protocol.ts';

const config = workerData as WorkerConfig;
const classifiers = new Map<string, TextClassifier>();
const taggers = new Map<string, TokenClassifier>();
const failed = new Map<string, string>();

// Top-level await: Piscina reports the thread ready only after this resolves, so models are loaded
// before the first task reaches the thread.
await Promise.all(
  config.models.map(async (id) => {
    try {
      const entry = modelEntry(id, config.modelsDir);
      if (entry.task === 'token-classification') taggers.set(id, await loadOnnxTokenClassifier(entry, config.modelsDir));
      else classifiers.set(id, await loadOnnxClassifier(entry, config.modelsDir));
    } catch (err) {
      failed.set(id, (err as Error).message);
    }
  }),
);

function notLoaded(model: string): ModelReply {
  return { ok: false, code: 'model_not_loaded', message: failed.get(model) ?? `model ${model} is not loaded in this worker` };
}

export default async function run(task: ModelTask): Promise<ModelReply> {
  if (config.allowCrashTask && 'texts' in task && task.texts.some((t) => t.includes(CRASH_MARKER))) process.exit(1);
  switch (task.op) {
    case 'classify': {
      const model = classifiers.get(task.model);
      if (!model) return notLoaded(task.model);
      try {
        return { ok: true, scores: await model.scoreBatch(task.texts) };
      } catch (err) {
        return { ok: false, code: 'inference_failed', message: (err as Error).message };
      }
    }
    case 'entities': {
      const model = taggers.get(task.model);
      if (!model) return notLoaded(task.model);
      try {
        return { ok: true, entities: await model.entitiesBatch(task.texts) };
      } catch (err) {
        return { ok: false, code: 'inference_failed', message: (err as Error).message };
      }
    }
    case 'warmup': {
      const counter = new Int32Array(task.barrier);
      Atomics.add(counter, 0, 1);
      Atomics.notify(counter, 0);
      const deadline = Date.now() + task.timeoutMs;
      // Block this thread until every thread holds a warm-up task: then each one has loaded.
      while (Atomics.load(counter, 0) < task.threads) {
        const left = deadline - Date.now();
        if (left <= 0) return { ok: false, code: 'warmup_timeout', message: 'not every worker thread started in time' };
        Atomics.wait(counter, 0, Atomics.load(counter, 0), Math.min(left, 50));
      }
      // Run each model once so the first real request does not pay for lazy initialisation.
      for (const m of classifiers.values()) await m.scoreBatch(['warm up']);
      for (const m of taggers.values()) await m.entitiesBatch(['Warm up in Paris']);
      return { ok: true, loaded: [...classifiers.keys(), ...taggers.keys()] };
    }
    default:
      return { ok: false, code: 'bad_task', message: 'unknown task' };
  }
}
