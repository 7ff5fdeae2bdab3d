/**
 * Toxicity: the pool's classifier over each window of the content. When the model cannot answer,
 * the detector reports score 0 with a note (there is no second toxicity model to fall back to) and
 * the scan goes on: a degraded detector never fails a scan.
 */
import type { ModelEntry } from '../../inference/manifest.ts';
import type { Detector, DetectorResult } from '../detector.ts';
import { ALL_SURFACES } from '../detector.ts';
import { frameworksFor } from '../frameworks.ts';
import { ModelUnavailableError, type ModelClient } from '../model-client.ts';
import { best, itemFor, windowsOf } from './scoring.ts';

export function createToxicityDetector(
  entry: ModelEntry,
  models: ModelClient | null,
  onUnavailable?: (reason: string) => void,
): Detector {
  if (!entry.thresholds) throw new Error(`model ${entry.id} has no thresholds in the manifest`);
  const thresholds = entry.thresholds;
  const source = `model:${entry.id}@${entry.version}`;
  return {
    name: 'toxicity',
    version: '1.0.0',
    model: `${entry.id}@${entry.version}`,
    kind: 'score',
    category: 'toxicity',
    surfaces: ALL_SURFACES,
    thresholds,
    frameworks: frameworksFor('toxicity'),
    async detect(input): Promise<DetectorResult> {
      if (!models)
        return { detector: 'toxicity', score: 0, items: [], note: 'model_unavailable;reason=model_not_loaded' };
      const windows = windowsOf(input, entry.max_chars);
      try {
        const scores = await models.classify(
          entry.id,
          windows.map((w) => w.text),
          input.deadlineAt ?? Date.now() + 60_000,
        );
        const { score, window } = best(windows, scores);
        const items = window && score > thresholds.warn_above ? [itemFor(input, window, 'toxic', score, source)] : [];
        return { detector: 'toxicity', score, items };
      } catch (err) {
        if (!(err instanceof ModelUnavailableError)) throw err;
        onUnavailable?.(err.reason);
        return { detector: 'toxicity', score: 0, items: [], note: `model_unavailable;reason=${err.reason}` };
      }
    },
  };
}
