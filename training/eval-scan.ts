/**
 * The service's own scan path for `npm run eval`: `startScanning` (normalisation, decoded views, chunking,
 * the worker pool, the models and the manifest thresholds) set up for an offline run, one text and one
 * detector per scan.
 */
import { loadConfig } from '../config.ts';
import type { DetectorResult, Surface, Tier } from '../engine/detector.ts';
import type { ExtraRunStage } from '../engine/detectors/extra-stage.ts';
import { createLogger } from '../lib/logger.ts';
import { createMetrics, type Metrics } from '../lib/metrics.ts';
import { startScanning, type Scanning, type ScanningOptions } from '../server/scanning.ts';

export interface EvalScanning {
  scanning: Scanning;
  metrics: Metrics;
}

/**
 * @param opts `rawScores` for the calibration fit (`npm run train:thresholds`)
 * @throws when the in-process model is missing or fails its sha256 check.
 */
export async function startEvalScanning(
  threads: number,
  concurrency: number,
  opts: ScanningOptions = {},
): Promise<EvalScanning> {
  const logger = createLogger(process.env.LOG_LEVEL ?? 'warn', process.stderr);
  const metrics = createMetrics(false);
  const env = loadConfig({
    ENCODER_PRECISION: process.env.ENCODER_PRECISION,
    EXTRA_MODELS_DIR: process.env.EXTRA_MODELS_DIR,
  });
  const scanning = await startScanning(
    {
      WORKER_THREADS: threads,
      POOL_QUEUE_MAX: Math.max(4096, concurrency * 4),
      POOL_MAX_BATCH: 32,
      POOL_SLICE_MS: 5,
      MODELS_DIR: process.env.MODELS_DIR,
      ENCODER_PRECISION: env.ENCODER_PRECISION,
      // the operators' models join their detectors here as they do in the service
      EXTRA_MODELS_DIR: env.EXTRA_MODELS_DIR,
    },
    metrics,
    logger,
    opts,
  );
  return { scanning, metrics };
}

/** One detector's result for one text (undefined when the detector did not run on the surface). */
export async function scanText(
  scanning: Scanning,
  detector: string,
  tier: Tier,
  surface: Surface,
  text: string,
): Promise<DetectorResult | undefined> {
  const outcome = await scanning.engine.scan(
    // eslint-disable-next-line no-control-regex -- NUL is what this replaces
    { surface, text: text.replace(/\u0000/g, '\uFFFD'), tier, detectors: [detector] },
    { deadlineAt: Date.now() + 600_000 },
  );
  return outcome.runs[0]?.result;
}

/** How an operator's model was used so far, per stage (`cf_extra_model_runs_total`), all tiers or one. */
export async function extraModelCounts(
  metrics: Metrics,
  model: string,
  tier?: Tier,
): Promise<Record<ExtraRunStage, number>> {
  const counts: Record<ExtraRunStage, number> = { early_low: 0, early_high: 0, full: 0, fallback: 0 };
  for (const v of (await metrics.extraModelRuns.get()).values)
    if (v.labels.model === model && (!tier || v.labels.tier === tier))
      counts[v.labels.stage as ExtraRunStage] += v.value;
  return counts;
}

/** The auto tier's cascade so far: scans decided without the deferred model (early) and with it (full). */
export async function cascadeCounts(metrics: Metrics, detector: string): Promise<{ early: number; full: number }> {
  const values = (await metrics.detectorCascade.get()).values.filter((v) => v.labels.detector === detector);
  const n = (stage: string): number => values.find((v) => v.labels.stage === stage)?.value ?? 0;
  return { early: n('early'), full: n('full') };
}
