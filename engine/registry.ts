/**
 * The explicit detector registry (no directory scanning): adding a detector is a file in
 * `detectors/`, a line here, a test table, a manifest entry if it has a model, and a line in
 * docs/detectors.md.
 */
import { loadCharLm } from '../inference/char-lm.ts';
import type { ExtraModel } from '../inference/extra-models.ts';
import { loadLinearModel } from '../inference/linear-model.ts';
import { modelEntry, readManifest, type ModelEntry } from '../inference/manifest.ts';
import type { Detector } from './detector.ts';
import {
  extraCalibrationOf,
  withExtraStage,
  type ExtraCalibrationStatus,
  type ExtraObserver,
} from './detectors/extra-stage.ts';
import { createPiiDetector } from './detectors/pii.ts';
import { withExtraEntities } from './detectors/pii-extra.ts';
import { createPromptInjectionDetector } from './detectors/prompt-injection.ts';
import { compileIntentRules, loadIntentLexicon, loadToxicLexicon, TOXICITY_RULES } from './detectors/intent-rules.ts';
import { sensitivePathDetector } from './detectors/sensitive-path.ts';
import { createToxicityDetector } from './detectors/toxicity.ts';
import type { ModelClient } from './model-client.ts';

/** Model ids the detectors use; the pool loads the `POOL_MODELS` in every thread. */
export const MODEL_IDS = {
  promptInjectionFast: 'pi-fast',
  promptInjectionAccurate: 'pi-accurate',
  promptInjectionSuffix: 'pi-suffix',
  promptInjectionSemantic: 'pi-semantic',
  toxicity: 'toxicity',
  toxicitySemantic: 'toxicity-semantic',
  piiNer: 'pii-ner',
} as const;
export const POOL_MODELS: readonly string[] = [
  MODEL_IDS.promptInjectionAccurate,
  MODEL_IDS.promptInjectionSemantic,
  MODEL_IDS.toxicity,
  MODEL_IDS.toxicitySemantic,
  MODEL_IDS.piiNer,
];

/**
 * What every pool thread loads: `POOL_MODELS`, and pi-suffix where the manifest lists it (its character
 * LM runs in the scan's pool task, off the event loop; in process only without a pool).
 */
export function poolModels(modelsDir?: string): string[] {
  return suffixEntryOf(modelsDir) ? [...POOL_MODELS, MODEL_IDS.promptInjectionSuffix] : [...POOL_MODELS];
}

/** pi-suffix's entry, or null where the manifest does not list it (it is optional). */
function suffixEntryOf(modelsDir?: string): ModelEntry | null {
  return readManifest(modelsDir).models.find((m) => m.id === MODEL_IDS.promptInjectionSuffix) ?? null;
}

export interface RegistryOptions {
  /** Runs the pool's models, or null to serve in-process detectors only (every scan then takes the fast tier). */
  models: ModelClient | null;
  /** Models the pool actually loaded (from warm-up); others count as unloaded. */
  loadedModels: readonly string[];
  modelsDir?: string;
  /** Scores uncalibrated, on each model's own thresholds (what `npm run train:thresholds` fits on). */
  rawScores?: boolean;
  observe?: { fallback(detector: string, reason: string): void; cascade?(detector: string, stage: string): void };
  /**
   * Operators' models (EXTRA_MODELS_DIR), loaded by the pool under their names: a calibrated text classifier
   * is stacked onto its detector (not with `rawScores`), a token classifier's entities join pii.
   */
  extra?: {
    models: readonly ExtraModel[];
    /** Each text classifier's calibration (read when absent). */
    calibrations?: ReadonlyMap<string, ExtraCalibrationStatus>;
    observe?: ExtraObserver;
  };
}

export class DetectorRegistry {
  private readonly byName: ReadonlyMap<string, Detector>;

  /** `disabled`: detectors this deployment cannot serve fully (their model is not loaded); they run only when asked for by name. */
  constructor(
    readonly detectors: readonly Detector[],
    private readonly disabled: ReadonlySet<string> = new Set(),
  ) {
    this.byName = new Map(detectors.map((d) => [d.name, d]));
  }

  enabled(name: string): boolean {
    return this.byName.has(name) && !this.disabled.has(name);
  }

  /** The detectors a scan runs when it names none. */
  get defaults(): Detector[] {
    return this.detectors.filter((d) => !this.disabled.has(d.name));
  }

  get(name: string): Detector | undefined {
    return this.byName.get(name);
  }

  get names(): string[] {
    return this.detectors.map((d) => d.name);
  }
}

/** Builds every detector, loading the in-process models (sha256 checked; pi-suffix only where the manifest lists it). */
export function buildRegistry(opts: RegistryOptions): DetectorRegistry {
  const loaded = (id: string): ModelEntry | null =>
    opts.models && opts.loadedModels.includes(id) ? modelEntry(id, opts.modelsDir) : null;
  const fast = loadLinearModel(modelEntry(MODEL_IDS.promptInjectionFast, opts.modelsDir), opts.modelsDir);
  const suffixEntry = suffixEntryOf(opts.modelsDir);
  const suffix = suffixEntry ? loadCharLm(suffixEntry, opts.modelsDir) : null;
  const accurate = loaded(MODEL_IDS.promptInjectionAccurate);
  // a stacker's inputs must be models of this manifest (a typo would otherwise read as a model not loaded)
  if (accurate?.combine?.method === 'logistic')
    for (const id of accurate.combine.inputs) modelEntry(id, opts.modelsDir);
  const toxicity = modelEntry(MODEL_IDS.toxicity, opts.modelsDir);
  const toxicityLoaded = loaded(MODEL_IDS.toxicity) !== null;
  const detectors: Detector[] = [
    createPromptInjectionDetector({
      fast,
      suffix,
      suffixModels: opts.models?.suffix && loaded(MODEL_IDS.promptInjectionSuffix) ? opts.models : null,
      accurate,
      semantic: loaded(MODEL_IDS.promptInjectionSemantic),
      models: opts.models,
      onFallback: (reason) => opts.observe?.fallback('prompt_injection', reason),
      onCascade: (stage) => opts.observe?.cascade?.('prompt_injection', stage),
      raw: opts.rawScores ?? false,
      intents: compileIntentRules(loadIntentLexicon()),
    }),
    createPiiDetector(loaded(MODEL_IDS.piiNer), opts.models, (reason) => opts.observe?.fallback('pii', reason)),
    createToxicityDetector({
      entry: toxicity,
      semantic: loaded(MODEL_IDS.toxicitySemantic),
      models: toxicityLoaded ? opts.models : null,
      onUnavailable: (reason) => opts.observe?.fallback('toxicity', reason),
      onCascade: (stage) => opts.observe?.cascade?.('toxicity', stage),
      raw: opts.rawScores ?? false,
      terms: compileIntentRules(loadToxicLexicon(), TOXICITY_RULES),
    }),
    sensitivePathDetector,
  ];
  return new DetectorRegistry(
    detectors.map((d) => withExtraModels(d, opts)),
    new Set(toxicityLoaded ? [] : ['toxicity']),
  );
}

/** `d` with the operators' models declared for it, as far as they can be used (see RegistryOptions.extra). */
function withExtraModels(d: Detector, opts: RegistryOptions): Detector {
  const extra = opts.extra;
  const mine = extra?.models.filter((m) => m.detector === d.name) ?? [];
  if (!extra || mine.length === 0) return d;
  const loaded = new Set(opts.models ? opts.loadedModels : []);
  if (d.name === 'pii')
    return withExtraEntities(d, { models: mine, loaded, client: opts.models, observe: extra.observe });
  // one text classifier per detector: each is calibrated as the only addition to the detector's score
  const model = mine[0]!;
  const calibration = extra.calibrations?.get(model.name) ?? extraCalibrationOf(model);
  if (!calibration.ok) {
    // the catalog says why; no server paths in it
    const why = calibration.reason
      .replace(/^not calibrated: /, '')
      .split(`${model.dir}/`)
      .join('');
    return { ...d, model: `${d.model}; ${model.name}@${model.version} (not calibrated: ${why})` };
  }
  if (opts.rawScores) return d;
  return withExtraStage(d, {
    model,
    calibration: calibration.value,
    loaded: loaded.has(model.name),
    models: opts.models,
    observe: extra.observe,
  });
}
