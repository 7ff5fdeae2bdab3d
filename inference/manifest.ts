/**
 * `models/manifest.json`: the models this repository serves, each pinned by id, version, file and
 * sha256, with its featurizer parameters, labels, window length (`max_chars`) and default thresholds.
 * Every loader reads its file through {@link readVerified}, which checks the sha256 against the entry.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fromRoot } from '../lib/package-root.ts';

/** A detector's score levels: above `warn_above` it warns, above `flag_above` it flags, above `block_above` it blocks. */
export interface Thresholds {
  warn_above: number;
  flag_above: number;
  block_above: number;
}

/**
 * A combination of models, each scoring the text as the max over its own windows:
 * - `mean`: the mean of this model's score and model `with`'s score;
 * - `logistic` (a stacker): sigmoid(bias + Σ weights[i] · logit(score of inputs[i])), scores clamped to
 *   to [LOGIT_EPSILON, 1 − LOGIT_EPSILON] (`logistic-head.ts`) before the logit; `inputs` names the entry's own id among others.
 */
export type Combine =
  | { method: 'mean'; with: string }
  | {
      method: 'logistic';
      inputs: string[];
      weights: number[];
      bias: number;
      /**
       * The auto tier runs `defer` only when the other inputs leave the scan undecided. Two forms:
       * - `upper_logit`: when the score with `defer`'s logit at `upper_logit` (a high quantile of its logits,
       *   from the stacking trainer) stays at or below `warn_above`, the scan is decided without it;
       * - `below`: when every other input scores at or below `below`, the scan is decided by the `reduced`
       *   stack (which must drop `defer`), provided that stays at or below `warn_above`.
       */
      cascade?: { defer: string; upper_logit: number } | { defer: string; below: number };
      /**
       * On these surfaces the stack runs without `drop` (the sentence encoder, trained on prompts): `weights`
       * (for `inputs` minus `drop`, in order) and `bias` of a stack fitted without it; same thresholds.
       */
      reduced?: { surfaces: string[]; drop: string; weights: number[]; bias: number };
    };

/**
 * Where a detector's raw scores reach the stated benign false-alarm rates (`fpr`: warn, flag and block),
 * per scoring form (`fast`: the model alone or a stack's reduced, lexical form; `accurate`: the full
 * stack) and surface group (`prompt`, `document`); the detector maps them onto its published levels
 * (`engine/detectors/calibration.ts`). Written by `npm run train:thresholds`, with the benign pool it
 * measured (`pool`: rows per group and where they came from).
 */
export interface Calibration {
  fpr: Thresholds;
  forms: { fast?: Record<string, Thresholds>; accurate?: Record<string, Thresholds> };
  pool: Record<string, unknown>;
}

export interface ModelEntry {
  id: string;
  version: string;
  task: 'text-classification' | 'token-classification';
  runtime: 'js-linear' | 'js-char-lm' | 'onnx';
  file: string;
  sha256: string;
  featurizer: Record<string, unknown>;
  labels: string[];
  max_chars: number;
  /** Subword vocabulary file of `wordpiece-v1` models, hash-checked like the model file. */
  tokenizer?: { file: string; sha256: string };
  /** How the detector combines this model with others; `thresholds` then apply to the combined score. */
  combine?: Combine;
  thresholds?: Thresholds;
  /** The raw scores that mean the stated false-alarm rates, per form and surface group. */
  calibration?: Calibration;
  metrics?: Record<string, unknown>;
}

/** Absolute path of the artifacts directory (`models/` at the repository root). */
export const MODELS_DIR: string = fromRoot('models');

/** The manifest's model entries. @throws when the file is missing or has no `models` array */
export function readManifest(dir: string = MODELS_DIR): { models: ModelEntry[] } {
  const raw = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { models?: unknown };
  if (!raw || !Array.isArray(raw.models)) throw new Error(`${path.join(dir, 'manifest.json')}: no "models" array`);
  return { models: raw.models as ModelEntry[] };
}

/** One model's entry. @throws when the manifest does not list it */
export function modelEntry(id: string, dir: string = MODELS_DIR): ModelEntry {
  const e = readManifest(dir).models.find((m) => m.id === id);
  if (!e) throw new Error(`model "${id}" is not in ${path.join(dir, 'manifest.json')}`);
  return e;
}

/** A model file (or its tokenizer) is not the one the manifest pins. */
export class ModelIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelIntegrityError';
  }
}

/** Reads the model file (or another file of the entry) and checks its sha256 against the manifest entry. @throws ModelIntegrityError */
export function readVerified(entry: ModelEntry, dir: string, asset: { file: string; sha256: string } = entry): Buffer {
  const file = path.resolve(dir, asset.file);
  const bytes = readFileSync(file);
  const got = createHash('sha256').update(bytes).digest('hex');
  if (got !== asset.sha256) {
    throw new ModelIntegrityError(`model "${entry.id}": sha256 of ${file} is ${got}, manifest says ${asset.sha256}`);
  }
  return bytes;
}

/** @throws when the entry is not of the task and runtime the loader serves */
export function checkKind(entry: ModelEntry, task: ModelEntry['task'], runtime: ModelEntry['runtime']): void {
  if (entry.task !== task || entry.runtime !== runtime) {
    throw new Error(`model "${entry.id}" is ${entry.task}/${entry.runtime}, expected ${task}/${runtime}`);
  }
}
