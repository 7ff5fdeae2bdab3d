/**
 * What the extra-models-*.test.ts files share: an EXTRA_MODELS_DIR in a temporary folder holding part of
 * the real fixtures of `training/hf-fixtures.ts` (tiny seeded ONNX models with their real tokenizers), the
 * calibration files the tests choose, and a model.onnx that is not a model.
 *
 * The calibrations give the detector's own score a tiny weight (0.01: at most ±0.09 on the logit), so which
 * way the auto tier's cascade goes is a property of the calibration the test wrote — the anchors of the
 * surface group — and not of whatever our built-in models score today.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Thresholds } from '../../inference/manifest.ts';
import { CALIBRATION_FILE, EXTRA_MANIFEST, type ExtraCalibration } from '../../inference/extra-models.ts';
import { writeHfFixture } from '../../training/hf-fixtures.ts';

/** On the published scale the anchors are the levels themselves: the stack's raw score is published as it is. */
export const IDENTITY: Thresholds = { warn_above: 0.5, flag_above: 0.7, block_above: 0.9 };
/** The stack with the model's logit anywhere in [−1, 1] stays at or below warn: decided without it. */
export const ALWAYS_LOW: Thresholds = { warn_above: 0.8, flag_above: 0.85, block_above: 0.9 };
/** The stack with the model's logit anywhere in [−1, 1] is above block: decided without it. */
export const ALWAYS_HIGH: Thresholds = { warn_above: 0.05, flag_above: 0.1, block_above: 0.2 };
/** The most the detector's own score moves the stack's logit (weight 0.01 × the clamped logit's 9.21). */
export const BASE_REACH = 0.01 * 9.2104;

export interface ExtraDirOptions {
  /** the prompt_injection text classifier `guard`: its anchors per surface group and its timeout */
  guard?: { prompt: Thresholds; document: Thresholds; timeoutMs?: number };
  /** the pii token classifier `names` */
  names?: boolean;
  /** a toxicity text classifier `broken` whose model.onnx is not a model (sha256 declared, calibrated) */
  broken?: boolean;
}

/** A word the fixture's text classifier was planted to score high on, and a name its tagger tags. */
export const TRIGGER = 'zebraquartz';
export const PLANTED_NAME = 'quillon';
/** What the declaration maps the tagger's PER entities to. */
export const NAME_LABEL = 'CUSTOMER_NAME';

/** Writes the folder and its models.json; returns the folder. */
export function extraModelsDir(o: ExtraDirOptions): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cf-extra-models-'));
  const models: Record<string, unknown>[] = [];
  if (o.guard) {
    const { sha256, declaration } = writeHfFixture(path.join(dir, 'guard'), 'bert-wordpiece', {
      task: 'text-classification',
      name: 'guard',
      planted: { trigger: TRIGGER },
    });
    models.push({
      ...declaration,
      name: 'guard',
      version: '2.0',
      detector: 'prompt_injection',
      ...(o.guard.timeoutMs ? { timeout_ms: o.guard.timeoutMs } : {}),
    });
    calibrate(dir, 'guard', sha256['model.onnx']!, 'prompt_injection', o.guard);
  }
  if (o.names) {
    const { declaration } = writeHfFixture(path.join(dir, 'names'), 'roberta-bpe', {
      task: 'token-classification',
      name: 'names',
      planted: { name: PLANTED_NAME },
    });
    // a label of the operator's own: the item is the model's, whatever our NER makes of the word
    models.push({ ...declaration, version: '1.0', entities: { PER: NAME_LABEL } });
  }
  if (o.broken) {
    // a donor fixture's tokenizer and config, and a model.onnx that is not a model (declared with its sha256)
    const { sha256, declaration } = writeHfFixture(path.join(dir, 'broken'), 'deberta-unigram', {
      task: 'text-classification',
      name: 'broken',
    });
    const garbage = Buffer.from('this is not an ONNX model, though the declaration pins exactly these bytes\n');
    writeFileSync(path.join(dir, 'broken', 'model.onnx'), garbage);
    const onnxSha = createHash('sha256').update(garbage).digest('hex');
    models.push({
      ...declaration,
      name: 'broken',
      version: '0.1',
      detector: 'toxicity',
      sha256: { ...sha256, 'model.onnx': onnxSha },
    });
    calibrate(dir, 'broken', onnxSha, 'toxicity', { prompt: IDENTITY, document: IDENTITY });
  }
  writeFileSync(path.join(dir, EXTRA_MANIFEST), JSON.stringify({ models }, null, 2));
  return dir;
}

/** A calibration.json for `name`, written as `npm run models:calibrate` would, with the test's numbers. */
function calibrate(
  dir: string,
  name: string,
  sha256: string,
  detector: 'prompt_injection' | 'toxicity',
  anchors: { prompt: Thresholds; document: Thresholds },
): void {
  const c: ExtraCalibration = {
    model: name,
    sha256,
    detector,
    fitted_at: '2026-03-01T12:00:00.000Z',
    stack: { bias: 0, base: 0.01, model: 1 },
    cascade: { lower_logit: -1, upper_logit: 1 },
    calibration: {
      fpr: { warn_above: 0.05, flag_above: 0.02, block_above: 0.005 },
      forms: { accurate: { prompt: anchors.prompt, document: anchors.document } },
      pool: {},
    },
  };
  writeFileSync(path.join(dir, name, CALIBRATION_FILE), JSON.stringify(c, null, 2));
}

/** One byte more in a declared file: what the sha256 check is for. */
export function tamper(dir: string, name: string, file = 'model.onnx'): void {
  appendFileSync(path.join(dir, name, file), '\n');
}

/** The stacked score's bounds for the model's raw score `sm`, whatever the detector's own score was. */
export function stackBounds(sm: number): [number, number] {
  const q = Math.min(1 - 1e-4, Math.max(1e-4, sm));
  const z = Math.log(q / (1 - q));
  const s = (x: number) => 1 / (1 + Math.exp(-x));
  return [s(z - BASE_REACH), s(z + BASE_REACH)];
}
