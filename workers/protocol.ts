/**
 * Messages between the main thread and the model workers. Errors do not survive the thread
 * boundary as classes, so a worker answers `{ok: false, code, message}` and the main thread
 * rebuilds a typed error (STYLE.md).
 */
import type { CharLmScore } from '../inference/char-lm.ts';
import type { ExtraModel } from '../inference/extra-models.ts';
import type { Entity } from '../inference/token-classifier.ts';
import type { EncoderPrecision } from '../inference/use-lite-graph.ts';
import type { PartTiming } from './inference-costs.ts';

/** One model's share of an inference task. */
export interface InferencePart {
  /** classify: a score per text; entities: a tagger's entities; suffix: a character LM's most surprising window. */
  op: 'classify' | 'entities' | 'suffix';
  model: string;
  texts: string[];
}

/** A part's answer: scores, entities, or why that model could not answer; `ms` is how long the thread spent on it. */
export type PartReply =
  | { ok: true; scores: number[]; ms?: number }
  | { ok: true; entities: Entity[][]; ms?: number }
  | { ok: true; windows: CharLmScore[]; ms?: number }
  | { ok: false; code: WorkerErrorCode; message: string };

export type ModelTask =
  /** Several models' requests in one thread hop: posting a task costs more than a small inference. */
  | { op: 'infer'; parts: InferencePart[] }
  /** Holds the thread until `threads` warm-up tasks are running at once, so every thread has loaded. */
  | { op: 'warmup'; barrier: SharedArrayBuffer; threads: number; timeoutMs: number }
  /** Before the pool is destroyed: every thread frees its onnxruntime sessions (barrier as for warm-up). */
  | { op: 'release'; barrier: SharedArrayBuffer; threads: number; timeoutMs: number };

export type ModelReply =
  | { ok: true; parts: PartReply[] }
  /**
   * `timings`: the warm-up's full-window runs, per model (the dispatcher's first inference costs); `failed`:
   * why each model this thread was given did not load.
   */
  | { ok: true; loaded: string[]; timings: PartTiming[]; failed?: Record<string, string> }
  | { ok: true; released: number }
  | { ok: false; code: WorkerErrorCode; message: string };

export type WorkerErrorCode = 'model_not_loaded' | 'inference_failed' | 'warmup_timeout' | 'bad_task';

/** What each worker thread loads, passed as Piscina's workerData. */
export interface WorkerConfig {
  /** Model ids to load from the manifest; a model that fails to load is reported, not fatal. */
  models: string[];
  /**
   * Operators' models (EXTRA_MODELS_DIR), checked at start: loaded beside ours under their names, reported
   * the same way when they fail to load.
   */
  extraModels?: ExtraModel[];
  modelsDir?: string;
  /** Window embeddings the thread's sentence-encoder heads share (`SEMANTIC_WINDOW_CACHE`; default 256). */
  windowCache?: number;
  /** Weights of the sentence encoder the thread builds (`ENCODER_PRECISION`; default fp32). */
  encoderPrecision?: EncoderPrecision;
  /** Test hook: a text containing the worker's CRASH_MARKER kills the thread, to prove crash recovery. */
  allowCrashTask: boolean;
  /** The thread's nice value (`WORKER_NICE`; Linux sets it per thread): inference yields the cores to the event loop. */
  nice?: number;
}

/** Test hook: with `allowCrashTask`, a text holding this marker kills the worker thread mid-task. */
export const CRASH_MARKER = '\u{F8FF}crash-model-worker\u{F8FF}';
