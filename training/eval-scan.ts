/**
 * The service's own scan path for `npm run eval`: `startScanning` (normalisation, decoded views, chunking,
 * the worker pool, the models and the manifest thresholds) set up for an offline run, one text and one
 * detector per scan.
 */
import { loadConfig } from '../config.ts';
import type { DetectorResult, Surface, Tier } from '../engine/detector.ts';
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
  const scanning = await startScanning(
    {
      WORKER_THREADS: threads,
      POOL_QUEUE_MAX: Math.max(4096, concurrency * 4),
      POOL_MAX_BATCH: 32,
      POOL_SLICE_MS: 5,
      MODELS_DIR: process.env.MODELS_DIR,
      ENCODER_PRECISION: loadConfig({ ENCODER_PRECISION: process.env.ENCODER_PRECISION }).ENCODER_PRECISION,
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

/** The auto tier's cascade so far: scans decided without the deferred model (early) and with it (full). */
export async function cascadeCounts(metrics: Metrics, detector: string): Promise<{ early: number; full: number }> {
  const values = (await metrics.detectorCascade.get()).values.filter((v) => v.labels.detector === detector);
  const n = (stage: string): number => values.find((v) => v.labels.stage === stage)?.value ?? 0;
  return { early: n('early'), full: n('full') };
}
