/**
 * Starts the detection side of a process: the model pool (warm before the server reports ready),
 * its FIFO dispatcher, the detector registry and the engine, with their metrics.
 */
import client from 'prom-client';
import type { Metrics } from '../lib/metrics.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../lib/logger.ts';
import { ScanEngine } from '../engine/pipeline.ts';
import { buildRegistry, POOL_MODELS } from '../engine/registry.ts';
import { ModelDispatcher } from '../workers/dispatcher.ts';
import { createModelPool } from '../workers/pool.ts';

export interface Scanning {
  engine: ScanEngine;
  dispatcher: ModelDispatcher | null;
  /** Model ids every pool thread loaded. */
  loadedModels: string[];
  close(): Promise<void>;
}

export interface ScanningOptions {
  /** Lets tests kill a worker on purpose. */
  allowCrashTask?: boolean;
  warmupTimeoutMs?: number;
}

type ScanningConfig = Pick<
  Config,
  'WORKER_THREADS' | 'POOL_QUEUE_MAX' | 'POOL_MAX_BATCH' | 'POOL_SPLIT_CHARS' | 'MODELS_DIR'
> &
  Partial<Pick<Config, 'SEMANTIC_WINDOW_CACHE'>>;

/** @throws when the in-process model is missing or fails its sha256 check (the service cannot scan at all). */
export async function startScanning(
  config: ScanningConfig,
  metrics: Metrics,
  logger: Logger,
  opts: ScanningOptions = {},
): Promise<Scanning> {
  let dispatcher: ModelDispatcher | null = null;
  let loadedModels: string[] = [];
  if (config.WORKER_THREADS > 0) {
    const pool = createModelPool({
      threads: config.WORKER_THREADS,
      models: [...POOL_MODELS],
      modelsDir: config.MODELS_DIR,
      windowCache: config.SEMANTIC_WINDOW_CACHE,
      allowCrashTask: opts.allowCrashTask ?? false,
    });
    dispatcher = new ModelDispatcher(pool, {
      maxQueue: config.POOL_QUEUE_MAX,
      maxBatchTexts: config.POOL_MAX_BATCH,
      splitChars: config.POOL_SPLIT_CHARS,
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
    const missing = POOL_MODELS.filter((m) => !loadedModels.includes(m));
    if (missing.length)
      logger.warn({ missing }, 'some models did not load: their detectors fall back or report unavailable');
    logger.info({ threads: config.WORKER_THREADS, models: loadedModels }, 'model pool ready');
  } else {
    logger.warn('WORKER_THREADS=0: no model pool; prompt injection runs the fast tier, toxicity and NER are off');
  }
  const registry = buildRegistry({
    models: dispatcher,
    loadedModels,
    modelsDir: config.MODELS_DIR,
    observe: {
      fallback: (detector, reason) => metrics.detectorFallbacks.inc({ detector, reason }),
      cascade: (detector, stage) => metrics.detectorCascade.inc({ detector, stage }),
    },
  });
  const engine = new ScanEngine(registry, {
    detector: (name, tier, seconds) => metrics.detectorDuration.observe({ detector: name, tier }, seconds),
  });
  return {
    engine,
    dispatcher,
    loadedModels,
    close: async () => {
      await dispatcher?.close();
    },
  };
}
