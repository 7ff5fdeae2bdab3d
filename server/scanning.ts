/**
 * Starts the detection side of a process: the model pool (warm before the server reports ready),
 * its FIFO dispatcher, the detector registry and the engine, with their metrics, and the engine's
 * detector-result cache (RESULT_CACHE_BYTES; shared over its own Redis connection with REDIS_URL). With
 * EXTRA_MODELS_DIR, the operators' models are checked first (a bad declaration or file refuses the start),
 * loaded by the same pool, and joined to their detectors (`server/extra-models.ts`).
 */
import client from 'prom-client';
import type { Metrics } from '../lib/metrics.ts';
import { DEFAULT_ENCODER_PRECISION, type Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import type { Surface } from '../engine/detector.ts';
import { extraTop } from '../engine/detectors/extra-stage.ts';
import { ModelUnavailableError } from '../engine/model-client.ts';
import { normalize } from '../engine/normalize.ts';
import { ScanEngine } from '../engine/pipeline.ts';
import type { ExtraModel } from '../inference/extra-models.ts';
import { declaredExtraModels, extraCalibrations, extraFingerprint } from './extra-models.ts';
import { buildRegistry, poolModels } from '../engine/registry.ts';
import { createRedis, type Redis } from '../lib/redis.ts';
import { TwoLevelResultCache } from '../services/result-cache.ts';
import { ModelDispatcher } from '../workers/dispatcher.ts';
import { createModelPool } from '../workers/pool.ts';

export interface Scanning {
  engine: ScanEngine;
  dispatcher: ModelDispatcher | null;
  /** Model ids every pool thread loaded (the operators' by their names). */
  loadedModels: string[];
  /** The operators' models (EXTRA_MODELS_DIR), as declared and checked; empty without it. */
  extraModels: ExtraModel[];
  /**
   * The raw score s_m of the operator's text classifier `name` for `text`, as its detector's stack reads it
   * (the max over its pieces of the normalised text), without the model's scan timeout: what
   * `npm run models:calibrate` fits on. Whether or not it is calibrated.
   * @throws Error when `name` is not a declared text classifier; ModelUnavailableError when the pool cannot
   *   run it (not loaded, no pool); the ModelClient's other errors
   */
  scoreExtra(name: string, text: string, surface: Surface): Promise<number>;
  close(): Promise<void>;
}

export interface ScanningOptions {
  /** Lets tests kill a worker on purpose. */
  allowCrashTask?: boolean;
  warmupTimeoutMs?: number;
  /** Detectors score uncalibrated, on each model's own thresholds (for `npm run train:thresholds`). */
  rawScores?: boolean;
}

type ScanningConfig = Pick<
  Config,
  'WORKER_THREADS' | 'POOL_QUEUE_MAX' | 'POOL_MAX_BATCH' | 'POOL_SLICE_MS' | 'MODELS_DIR'
> &
  Partial<
    Pick<
      Config,
      | 'POOL_TENANT_QUEUE_MAX'
      | 'POOL_RESERVED_THREADS'
      | 'WORKER_NICE'
      | 'SCAN_LONG_TEXT_CHARS'
      | 'SCAN_SLICE_MS'
      | 'SCAN_LONG_PER_ORG'
      | 'SEMANTIC_WINDOW_CACHE'
      | 'ENCODER_PRECISION'
      | 'RESULT_CACHE_BYTES'
      | 'RESULT_CACHE_TTL_SECONDS'
      | 'REDIS_URL'
      | 'REDIS_KEY_PREFIX'
      | 'EXTRA_MODELS_DIR'
    >
  >;

/**
 * @throws when the in-process model is missing or fails its sha256 check (the service cannot scan at all);
 *   ExtraModelError when an operator's model is declared wrong or a file of it is missing or not the one declared
 */
export async function startScanning(
  config: ScanningConfig,
  metrics: Metrics,
  logger: Logger,
  opts: ScanningOptions = {},
): Promise<Scanning> {
  // before any thread starts: a wrong declaration or file is the operator's to fix, not a model to skip
  const extraModels = config.EXTRA_MODELS_DIR ? declaredExtraModels(config.EXTRA_MODELS_DIR, config.MODELS_DIR) : [];
  const calibrations = extraCalibrations(extraModels, logger);
  let dispatcher: ModelDispatcher | null = null;
  let loadedModels: string[] = [];
  if (config.WORKER_THREADS > 0) {
    const wanted = poolModels(config.MODELS_DIR);
    const pool = createModelPool({
      threads: config.WORKER_THREADS,
      models: wanted,
      extraModels,
      modelsDir: config.MODELS_DIR,
      windowCache: config.SEMANTIC_WINDOW_CACHE,
      encoderPrecision: config.ENCODER_PRECISION ?? DEFAULT_ENCODER_PRECISION,
      allowCrashTask: opts.allowCrashTask ?? false,
      nice: config.WORKER_NICE,
    });
    dispatcher = new ModelDispatcher(pool, {
      maxQueue: config.POOL_QUEUE_MAX,
      maxTenantQueue: config.POOL_TENANT_QUEUE_MAX,
      maxBatchTexts: config.POOL_MAX_BATCH,
      sliceMs: config.POOL_SLICE_MS,
      reservedThreads: config.POOL_RESERVED_THREADS,
      observer: {
        dispatched: (waitMs, texts) => {
          metrics.poolWait.observe(waitMs / 1000);
          metrics.poolBatchTexts.observe(texts);
        },
        rejected: (reason) => metrics.poolRejections.inc({ reason }),
      },
    });
    const d = dispatcher;
    new client.Gauge({
      name: 'cf_pool_queue_depth',
      help: 'Model requests waiting in the FIFO',
      registers: [metrics.registry],
      collect() {
        this.set(d.queueDepth);
      },
    });
    new client.Gauge({
      name: 'cf_pool_in_flight',
      help: 'Inference tasks running on worker threads',
      registers: [metrics.registry],
      collect() {
        this.set(d.running);
      },
    });
    try {
      loadedModels = await dispatcher.warmup(opts.warmupTimeoutMs ?? 120_000);
    } catch (err) {
      await dispatcher.close().catch(() => undefined);
      throw err;
    }
    const missing = wanted.filter((m) => !loadedModels.includes(m));
    if (missing.length)
      logger.warn({ missing }, 'some models did not load: their detectors fall back or report unavailable');
    for (const m of extraModels.filter((m) => !loadedModels.includes(m.name)))
      logger.warn(
        { model: m.name, detector: m.detector, error: dispatcher.loadFailures.get(m.name) },
        'extra model did not load: scans it is due on answer without it, with a note',
      );
    logger.info({ threads: config.WORKER_THREADS, models: loadedModels }, 'model pool ready');
  } else {
    logger.warn('WORKER_THREADS=0: no model pool; prompt injection runs the fast tier, toxicity and NER are off');
    if (extraModels.length) logger.warn('WORKER_THREADS=0: the extra models (EXTRA_MODELS_DIR) are not served');
  }
  const registry = buildRegistry({
    models: dispatcher,
    loadedModels,
    modelsDir: config.MODELS_DIR,
    rawScores: opts.rawScores ?? false,
    observe: {
      fallback: (detector, reason) => metrics.detectorFallbacks.inc({ detector, reason }),
      cascade: (detector, stage) => metrics.detectorCascade.inc({ detector, stage }),
    },
    extra: {
      models: extraModels,
      calibrations,
      observe: {
        run: (model, tier, stage) => metrics.extraModelRuns.inc({ model, tier, stage }),
        fallback: (model, reason) => metrics.extraModelFallbacks.inc({ model, reason }),
      },
    },
  });
  const cacheBytes = config.RESULT_CACHE_BYTES ?? 0;
  const fingerprint = extraFingerprint(extraModels, calibrations);
  const extraPrefix = fingerprint ? `x${fingerprint}:` : '';
  // Its own connection: a slow cache read never queues behind the rate limiter's commands, nor they behind it.
  const redis: Redis | null =
    cacheBytes > 0 && config.REDIS_URL
      ? createRedis(config.REDIS_URL, (err) => logger.debug({ err: err.message }, 'result cache: redis error'))
      : null;
  const cache =
    cacheBytes > 0
      ? new TwoLevelResultCache({
          maxBytes: cacheBytes,
          redis,
          // the encoder's precision changes its detectors' scores: processes that differ in it never share results
          // and so do processes that differ in the operators' models (files, calibrations, settings)
          prefix: `${config.REDIS_KEY_PREFIX ?? 'cf:'}${config.ENCODER_PRECISION ?? DEFAULT_ENCODER_PRECISION}:${extraPrefix}`,
          ttlSeconds: config.RESULT_CACHE_TTL_SECONDS ?? 3_600,
          observer: {
            lookup: (result, level) => metrics.scanCache.inc({ result, level }),
            redisFailed: (op) => metrics.scanCacheRedisFailures.inc({ op }),
            bytes: (bytes) => metrics.scanCacheBytes.set(bytes),
          },
        })
      : undefined;
  const engine = new ScanEngine(
    registry,
    {
      detector: (name, tier, seconds) => metrics.detectorDuration.observe({ detector: name, tier }, seconds),
      cacheSkipped: () => metrics.scanCache.inc({ result: 'skip', level: 'none' }),
      cacheJoined: () => metrics.scanCache.inc({ result: 'hit', level: 'inflight' }),
    },
    cache,
    {
      chars: config.SCAN_LONG_TEXT_CHARS ?? 20_000,
      sliceMs: config.SCAN_SLICE_MS ?? 2,
      perTenant: config.SCAN_LONG_PER_ORG ?? 2,
    },
  );
  return {
    engine,
    dispatcher,
    loadedModels,
    extraModels,
    scoreExtra: async (name, text, surface) => {
      const model = extraModels.find((m) => m.name === name && m.task === 'text-classification');
      if (!model) throw new Error(`${name} is not a text-classification model of EXTRA_MODELS_DIR`);
      if (!dispatcher) throw new ModelUnavailableError('model_not_loaded', 'WORKER_THREADS=0: no model pool');
      const input = { text: normalize(text), surface, tier: 'accurate' as const, deadlineAt: Date.now() + 600_000 };
      return (await extraTop(dispatcher, model, input)).score;
    },
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
      await dispatcher?.close();
    },
  };
}
