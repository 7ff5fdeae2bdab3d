/**
 * Operator-supplied ("bring your own") transformer classifiers: Hugging Face-format text- or
 * token-classification models exported to ONNX, declared in `$EXTRA_MODELS_DIR/models.json`
 * (docs/operators/extra-models.md). Each lives in a folder of its own with
 * - `model.onnx` (fp32 or int8), inputs `input_ids`, `attention_mask` and optionally `token_type_ids`,
 *   output `logits` ([batch, labels] or [batch, tokens, labels]);
 * - `tokenizer.json` (any kind `@huggingface/tokenizers` loads) and optionally `tokenizer_config.json`;
 * - `config.json` (`id2label`, `max_position_embeddings`, `model_type`).
 *
 * Every file is pinned by the declaration's sha256: a missing, wrong or tampered file refuses the start
 * with one message listing every problem, as `models/manifest.json` does for our own models. A model
 * is used by its detector once `npm run models:calibrate -- --model NAME` has written its
 * `calibration.json` beside it for these very bytes (`readExtraCalibration`).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Calibration, ModelEntry } from './manifest.ts';

/** The declaration file inside EXTRA_MODELS_DIR. */
export const EXTRA_MANIFEST = 'models.json';
/** The calibration file `npm run models:calibrate` writes into a model's folder. */
export const CALIBRATION_FILE = 'calibration.json';
export const REQUIRED_FILES = ['model.onnx', 'tokenizer.json', 'config.json'] as const;
export const OPTIONAL_FILES = ['tokenizer_config.json'] as const;

/** Detectors a declared model can feed, and the task each takes. */
export const EXTRA_DETECTORS = {
  prompt_injection: 'text-classification',
  toxicity: 'text-classification',
  pii: 'token-classification',
} as const;
export type ExtraDetector = keyof typeof EXTRA_DETECTORS;

const NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;
const SHA = /^[0-9a-f]{64}$/;

const declarationSchema = z
  .object({
    /** the model's name: pool id, metrics label, `--model NAME`; lowercase letters, digits, `.`, `_`, `-` */
    name: z.string().regex(NAME, 'lowercase letters, digits, ".", "_" or "-", at most 64'),
    /** shown in the detector catalog and item sources (`model:NAME@VERSION`) */
    version: z.string().min(1).max(64),
    detector: z.enum(Object.keys(EXTRA_DETECTORS) as [ExtraDetector, ...ExtraDetector[]]),
    task: z.enum(['text-classification', 'token-classification']),
    /** the model's folder, relative to EXTRA_MODELS_DIR (default: `name`) */
    path: z.string().min(1).optional(),
    /** sha256 (hex) of each file in the folder: model.onnx, tokenizer.json, config.json (+ tokenizer_config.json) */
    sha256: z.record(z.string(), z.string().regex(SHA, '64 lowercase hex digits')),
    /** text classification: the `id2label` names whose probabilities add up to the model's score */
    positive_labels: z.array(z.string().min(1)).min(1).optional(),
    /** token classification: the model's entity types (B-/I- prefixes stripped) → our PII labels */
    entities: z.record(z.string(), z.string().regex(/^[A-Z][A-Z_]*$/, 'an upper-case label')).optional(),
    /** token classification: entities below this confidence are dropped (default 0.5) */
    min_confidence: z.number().gt(0).lt(1).optional(),
    /** surfaces it runs on (default: all of its detector's) */
    surfaces: z.array(z.string()).min(1).optional(),
    /** tokens per window, special tokens included (default: the tokenizer's truncation or config's positions, ≤ 512) */
    max_tokens: z.number().int().min(8).max(8192).optional(),
    /** tokens two neighbouring windows share (default: max_tokens / 8) */
    stride_tokens: z.number().int().min(0).optional(),
    /** characters per piece the engine sends (default: 3 × max_tokens); the worker windows each by tokens */
    max_chars: z.number().int().min(16).max(100_000).optional(),
    /** how long a scan waits for this model before it answers without it, with a note (default 1500) */
    timeout_ms: z.number().int().min(10).max(600_000).optional(),
  })
  .strict();
export type ExtraModelDeclaration = z.infer<typeof declarationSchema>;

const manifestSchema = z.object({ models: z.array(declarationSchema) }).strict();

/** A declared model, checked and resolved: what the worker loads and the detectors stack. */
export interface ExtraModel {
  name: string;
  version: string;
  detector: ExtraDetector;
  task: 'text-classification' | 'token-classification';
  /** absolute path of the model's folder */
  dir: string;
  /** sha256 by file name, every file present checked */
  sha256: Record<string, string>;
  /** config.json's id2label, by class index */
  labels: string[];
  /** text classification: the class indices whose probabilities make the score */
  positive: number[];
  /** token classification: entity type (B-/I- stripped) → our label */
  entities: Record<string, string>;
  minConfidence: number;
  /** null: every surface of its detector */
  surfaces: string[] | null;
  maxTokens: number;
  strideTokens: number;
  maxChars: number;
  timeoutMs: number;
  /** config.json's model_type (`bert`, `deberta-v2`, `roberta`, …) */
  modelType: string;
  /** the pool's view of it: id = name, runtime onnx, featurizer `hf-tokenizer-v1` */
  entry: ModelEntry;
}

/** A declaration or one of its files is wrong: the service does not start. */
export class ExtraModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtraModelError';
  }
}

const sha256Of = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * The models declared in `dir`/models.json, every file's sha256 checked.
 * @param reserved model ids already taken (our own manifest's): a declared name may not reuse one
 * @throws ExtraModelError listing every problem (no manifest, a bad field, a missing or tampered file,
 *   labels that config.json does not have)
 */
export function readExtraModels(dir: string, reserved: readonly string[] = []): ExtraModel[] {
  const manifestPath = path.join(dir, EXTRA_MANIFEST);
  if (!existsSync(manifestPath))
    throw new ExtraModelError(`EXTRA_MODELS_DIR: ${manifestPath} does not exist (docs/operators/extra-models.md)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (err) {
    throw new ExtraModelError(`${manifestPath}: not JSON (${(err as Error).message})`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success)
    throw new ExtraModelError(
      `${manifestPath}:\n${parsed.error.issues.map((i) => `  ${i.path.join('.') || '(root)'}: ${i.message}`).join('\n')}`,
    );
  const problems: string[] = [];
  const models: ExtraModel[] = [];
  const seen = new Set<string>();
  parsed.data.models.forEach((d, i) => {
    const at = `models[${i}] (${d.name})`;
    const before = problems.length;
    if (seen.has(d.name)) problems.push(`${at}: the name is declared twice`);
    if (reserved.includes(d.name)) problems.push(`${at}: the name is one of the built-in models'`);
    seen.add(d.name);
    if (EXTRA_DETECTORS[d.detector] !== d.task)
      problems.push(`${at}: detector ${d.detector} takes ${EXTRA_DETECTORS[d.detector]} models, not ${d.task}`);
    const folder = path.resolve(dir, d.path ?? d.name);
    for (const f of REQUIRED_FILES) if (!d.sha256[f]) problems.push(`${at}: sha256 of ${f} is missing`);
    for (const f of OPTIONAL_FILES)
      if (!d.sha256[f] && existsSync(path.join(folder, f)))
        problems.push(`${at}: ${f} is in the folder but has no sha256 in the declaration`);
    for (const [f, want] of Object.entries(d.sha256)) {
      const file = path.join(folder, f);
      if (path.dirname(file) !== folder) problems.push(`${at}: sha256 names ${f}, not a file of the model's folder`);
      else if (!existsSync(file)) problems.push(`${at}: ${file} does not exist`);
      else {
        const got = sha256Of(file);
        if (got !== want) problems.push(`${at}: sha256 of ${file} is ${got}, the declaration says ${want}`);
      }
    }
    if (problems.length > before) return;
    try {
      models.push(resolve(d, folder));
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
    }
  });
  if (problems.length) throw new ExtraModelError(`${manifestPath}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return models;
}

interface HfConfig {
  id2label?: Record<string, string>;
  max_position_embeddings?: number;
  model_type?: string;
}

/** Entity type of a token label: `B-PER` / `I-PER` / `E-PER` / `S-PER` → `PER`; `O` → null. */
export function entityType(label: string): string | null {
  if (label === 'O') return null;
  const m = /^[BIESL]-(.+)$/.exec(label);
  return m ? m[1]! : label;
}

/** @throws Error on a config.json or declaration that does not fit together */
function resolve(d: ExtraModelDeclaration, dir: string): ExtraModel {
  const config = JSON.parse(readFileSync(path.join(dir, 'config.json'), 'utf8')) as HfConfig;
  const tokenizer = JSON.parse(readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as {
    truncation?: { max_length?: number } | null;
  };
  const id2label = config.id2label ?? {};
  const labels: string[] = [];
  for (const [k, v] of Object.entries(id2label)) labels[Number(k)] = v;
  if (labels.length < 2 || labels.some((l) => typeof l !== 'string'))
    throw new Error('config.json: id2label must name every class, 0..n-1 (at least two)');
  let positive: number[] = [];
  const entities: Record<string, string> = {};
  if (d.task === 'text-classification') {
    if (!d.positive_labels) throw new Error('positive_labels: required for text-classification');
    positive = d.positive_labels.map((l) => labels.indexOf(l));
    const unknown = d.positive_labels.filter((_, i) => positive[i]! < 0);
    if (unknown.length) throw new Error(`positive_labels: ${unknown.join(', ')} not in config.json id2label`);
    if (positive.length >= labels.length) throw new Error('positive_labels: every class is positive');
  } else {
    if (!d.entities || Object.keys(d.entities).length === 0)
      throw new Error('entities: required for token-classification');
    if (!labels.includes('O')) throw new Error('config.json: id2label has no "O" label');
    const types = new Set(labels.map(entityType).filter((t): t is string => t !== null));
    const unknown = Object.keys(d.entities).filter((t) => !types.has(t));
    if (unknown.length) throw new Error(`entities: ${unknown.join(', ')} not among config.json's entity types`);
    Object.assign(entities, d.entities);
  }
  const modelType = config.model_type ?? 'unknown';
  // RoBERTa-family position ids start after the padding index: 514 positions hold 512 tokens
  const offset = /roberta|camembert|longformer/.test(modelType) ? 2 : 0;
  const positions = config.max_position_embeddings ? config.max_position_embeddings - offset : 512;
  const maxTokens = d.max_tokens ?? Math.min(512, tokenizer.truncation?.max_length ?? positions, positions);
  if (maxTokens > positions) throw new Error(`max_tokens ${maxTokens} exceeds the model's ${positions} positions`);
  const strideTokens = d.stride_tokens ?? Math.floor(maxTokens / 8);
  if (strideTokens >= maxTokens / 2) throw new Error('stride_tokens: must be under half of max_tokens');
  const maxChars = d.max_chars ?? maxTokens * 3;
  return {
    name: d.name,
    version: d.version,
    detector: d.detector,
    task: d.task,
    dir,
    sha256: d.sha256,
    labels,
    positive,
    entities,
    minConfidence: d.min_confidence ?? 0.5,
    surfaces: d.surfaces ?? null,
    maxTokens,
    strideTokens,
    maxChars,
    timeoutMs: d.timeout_ms ?? 1500,
    modelType,
    entry: {
      id: d.name,
      version: d.version,
      task: d.task,
      runtime: 'onnx',
      file: 'model.onnx',
      sha256: d.sha256['model.onnx']!,
      featurizer: { type: 'hf-tokenizer-v1', max_tokens: maxTokens, stride_tokens: strideTokens },
      labels,
      max_chars: maxChars,
      tokenizer: { file: 'tokenizer.json', sha256: d.sha256['tokenizer.json']! },
    },
  };
}

/**
 * How a calibrated model joins its detector (`npm run models:calibrate` writes it, fitted on the public
 * validation sets and the operator's labeled events): the detector's published score and the model's
 * score are stacked as sigmoid(bias + base · logit(detector score) + model · logit(model score)), and
 * `calibration` maps that raw stack onto the published levels per surface group (form `accurate`).
 */
export interface ExtraCalibration {
  model: string;
  /** sha256 of the model.onnx it was fitted for: a different file is not calibrated */
  sha256: string;
  detector: ExtraDetector;
  fitted_at: string;
  stack: { bias: number; base: number; model: number };
  /**
   * The auto tier asks the model only when the stack is undecided without it: with the model's logit
   * at `upper_logit` (the lowest model logit at which the auto tier loses at most 0.5 % of the full stack's
   * alarms on the calibration rows) the stack stays at or below warn → decided without it; with it at
   * `lower_logit` (the highest at which it adds at most 0.5 % of the full stack's blocks) it is above block →
   * decided without it.
   */
  cascade: { lower_logit: number; upper_logit: number };
  calibration: Calibration;
  metrics?: Record<string, unknown>;
}

/** A model's calibration, or why there is none it can use (none written, for another file, unreadable). */
export function readExtraCalibration(
  model: ExtraModel,
): { ok: true; value: ExtraCalibration } | { ok: false; reason: string } {
  const file = path.join(model.dir, CALIBRATION_FILE);
  if (!existsSync(file))
    return { ok: false, reason: `not calibrated: run npm run models:calibrate -- --model ${model.name}` };
  let c: ExtraCalibration;
  try {
    c = JSON.parse(readFileSync(file, 'utf8')) as ExtraCalibration;
  } catch (err) {
    return { ok: false, reason: `${file}: not JSON (${(err as Error).message})` };
  }
  if (c.sha256 !== model.sha256['model.onnx'])
    return { ok: false, reason: `${file} was fitted for another model.onnx: calibrate again` };
  if (!c.stack || !c.cascade || !c.calibration?.forms) return { ok: false, reason: `${file}: incomplete` };
  return { ok: true, value: c };
}
