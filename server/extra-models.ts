/**
 * Operators' models (EXTRA_MODELS_DIR) at start-up: the declarations read and every file's sha256 checked
 * (`inference/extra-models.ts`), what serving adds to that (known surfaces, one text classifier per
 * detector), each text classifier's calibration, and what the logs say about them.
 */
import { createHash } from 'node:crypto';
import { SURFACES } from '../engine/detector.ts';
import { extraCalibrationOf, type ExtraCalibrationStatus } from '../engine/detectors/extra-stage.ts';
import { ExtraModelError, EXTRA_MANIFEST, readExtraModels, type ExtraModel } from '../inference/extra-models.ts';
import { readManifest } from '../inference/manifest.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * The models declared in `dir`, checked for serving.
 * @param modelsDir our own manifest's folder: a declared name may not reuse one of its model ids
 * @throws ExtraModelError listing every problem: the service does not start
 */
export function declaredExtraModels(dir: string, modelsDir?: string): ExtraModel[] {
  const models = readExtraModels(
    dir,
    readManifest(modelsDir).models.map((m) => m.id),
  );
  const problems: string[] = [];
  const known = new Set<string>(SURFACES);
  const textFor = new Map<string, string>();
  for (const m of models) {
    const unknown = (m.surfaces ?? []).filter((s) => !known.has(s));
    if (unknown.length) problems.push(`${m.name}: surfaces: ${unknown.join(', ')} not one of ${SURFACES.join(', ')}`);
    if (m.task !== 'text-classification') continue;
    // each is calibrated as the only addition to its detector's score: two would need one joint fit
    const other = textFor.get(m.detector);
    if (other) problems.push(`${m.name}: detector ${m.detector} already stacks ${other} (one text classifier each)`);
    textFor.set(m.detector, m.name);
  }
  if (problems.length)
    throw new ExtraModelError(`${dir}/${EXTRA_MANIFEST}:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return models;
}

/** Each text classifier's calibration; a warning for each one its detector cannot use. */
export function extraCalibrations(models: readonly ExtraModel[], logger: Logger): Map<string, ExtraCalibrationStatus> {
  const out = new Map<string, ExtraCalibrationStatus>();
  for (const m of models) {
    if (m.task !== 'text-classification') continue;
    const status = extraCalibrationOf(m);
    out.set(m.name, status);
    if (!status.ok)
      logger.warn(
        { model: m.name, detector: m.detector, reason: status.reason },
        'extra model not calibrated: its detector runs without it',
      );
  }
  return out;
}

/**
 * A digest of what the operators' models make of a scan (their files and calibrations): the shared result
 * cache keeps processes that differ in them apart, and a refit or a replaced file apart from before.
 */
export function extraFingerprint(
  models: readonly ExtraModel[],
  calibrations: ReadonlyMap<string, ExtraCalibrationStatus>,
): string {
  if (models.length === 0) return '';
  const parts = models.map((m) => {
    const c = calibrations.get(m.name);
    return [{ ...m, dir: undefined }, c?.ok ? c.value : null];
  });
  return createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16);
}
