/**
 * `js-linear` models (pi-fast): hashed-feature logistic regression, scored in-process in pure TS.
 */
import { checkKind, MODELS_DIR, ModelIntegrityError, readVerified, type ModelEntry } from './manifest.ts';
import { TextFeaturizer, type TextFeaturizerConfig } from './text-features.ts';

export interface LinearModel {
  readonly entry: ModelEntry;
  /** Probability-like score in [0, 1]; 0 for text without features (empty or blank). */
  score(text: string): number;
}

/**
 * File layout: little-endian float32 weights[buckets] followed by one float32 bias.
 * score = sigmoid(bias + sum over emitted features of w[bucket] / sqrt(n)).
 */
export function loadLinearModel(entry: ModelEntry, dir: string = MODELS_DIR): LinearModel {
  checkKind(entry, 'text-classification', 'js-linear');
  const bytes = readVerified(entry, dir);
  const cfg = entry.featurizer as unknown as TextFeaturizerConfig;
  const featurizer = new TextFeaturizer(cfg);
  const B = cfg.buckets;
  if (bytes.length !== (B + 1) * 4)
    throw new ModelIntegrityError(`model "${entry.id}": expected ${(B + 1) * 4} bytes, got ${bytes.length}`);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const w = new Float32Array(B);
  for (let i = 0; i < B; i++) w[i] = dv.getFloat32(i * 4, true);
  const bias = dv.getFloat32(B * 4, true);
  return {
    entry,
    score(text: string): number {
      const n = featurizer.hashes(text);
      if (n === 0) return 0;
      const raw = featurizer.raw;
      // four accumulators: independent adds instead of one long dependency chain
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      let k = 0;
      for (; k + 3 < n; k += 4) {
        s0 += w[raw[k] as number] as number;
        s1 += w[raw[k + 1] as number] as number;
        s2 += w[raw[k + 2] as number] as number;
        s3 += w[raw[k + 3] as number] as number;
      }
      for (; k < n; k++) s0 += w[raw[k] as number] as number;
      return 1 / (1 + Math.exp(-(bias + (s0 + s1 + (s2 + s3)) / Math.sqrt(n))));
    },
  };
}
