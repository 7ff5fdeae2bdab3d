import client from 'prom-client';

/** The process's Prometheus metrics; one registry per app so tests can build many apps. */
export interface Metrics {
  registry: client.Registry;
  httpRequests: client.Counter<'method' | 'route' | 'status'>;
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  unhandledErrors: client.Counter;
  scanDuration: client.Histogram<'tier'>;
  detectorDuration: client.Histogram<'detector' | 'tier'>;
  decisions: client.Counter<'action' | 'surface'>;
  detectorFallbacks: client.Counter<'detector' | 'reason'>;
  detectorCascade: client.Counter<'detector' | 'stage'>;
  extraModelRuns: client.Counter<'model' | 'tier' | 'stage'>;
  extraModelFallbacks: client.Counter<'model' | 'reason'>;
  scanCache: client.Counter<'result' | 'level'>;
  scanCacheRedisFailures: client.Counter<'op'>;
  scanCacheBytes: client.Gauge;
  poolWait: client.Histogram;
  poolBatchTexts: client.Histogram;
  poolRejections: client.Counter<'reason'>;
  scanWriteBatch: client.Histogram;
  scanWriteDuration: client.Histogram;
  jobRuns: client.Counter<'job' | 'outcome'>;
  jobDuration: client.Histogram<'job'>;
  jobLag: client.Histogram<'job'>;
  scanContentExpired: client.Counter;
  idempotencyKeysExpired: client.Counter;
  webhookAttempts: client.Counter<'outcome'>;
  webhookAttemptDuration: client.Histogram;
  webhookLag: client.Histogram;
  webhookInFlight: client.Gauge;
  webhookEnqueued: client.Counter;
  webhookDeliveriesPruned: client.Counter;
  analyticsBucketsRolledUp: client.Counter;
}

const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

export function createMetrics(collectDefaults: boolean): Metrics {
  const registry = new client.Registry();
  if (collectDefaults) client.collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    httpRequests: new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    unhandledErrors: new client.Counter({
      name: 'http_unhandled_errors_total',
      help: 'Requests that ended in an unexpected 500',
      registers,
    }),
    scanDuration: new client.Histogram({
      name: 'cf_scan_duration_seconds',
      help: 'Scan time from validated request to committed row, by requested tier',
      labelNames: ['tier'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    detectorDuration: new client.Histogram({
      name: 'cf_detector_duration_seconds',
      help: 'Time from scan start until each detector finished (includes pool queueing for model detectors)',
      labelNames: ['detector', 'tier'],
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    decisions: new client.Counter({
      name: 'cf_scan_decisions_total',
      help: 'Scan decisions by action and surface',
      labelNames: ['action', 'surface'],
      registers,
    }),
    detectorFallbacks: new client.Counter({
      name: 'cf_detector_fallbacks_total',
      help: 'Scans whose model could not answer (accurate → fast fallback, NER or toxicity unavailable)',
      labelNames: ['detector', 'reason'],
      registers,
    }),
    detectorCascade: new client.Counter({
      name: 'cf_detector_cascade_total',
      help: 'Auto-tier scans of a cascading detector: decided by the cheap models (early) or with the deferred encoder (full)',
      labelNames: ['detector', 'stage'],
      registers,
    }),
    extraModelRuns: new client.Counter({
      name: 'cf_extra_model_runs_total',
      help: "Scans an operator-supplied model (EXTRA_MODELS_DIR) was due on, by stage: early_low / early_high (auto tier: decided without it, below warn or above block whatever it says), full (it answered), fallback (it could not: the detector's own result, with a note)",
      labelNames: ['model', 'tier', 'stage'],
      registers,
    }),
    extraModelFallbacks: new client.Counter({
      name: 'cf_extra_model_fallbacks_total',
      help: 'Scans answered without an operator-supplied model that should have run, by reason (model_not_loaded, worker_crashed, inference_failed, timeout, pool_closed)',
      labelNames: ['model', 'reason'],
      registers,
    }),
    scanCache: new client.Counter({
      name: 'cf_scan_cache_total',
      help: 'Scans by detector-result cache outcome: hit or miss at the last level asked (local, redis; inflight: joined an identical scan then running), skip (not cacheable: level none)',
      labelNames: ['result', 'level'],
      registers,
    }),
    scanCacheRedisFailures: new client.Counter({
      name: 'cf_scan_cache_redis_failures_total',
      help: 'Result-cache Redis commands that failed, timed out or were not sent (not connected), by op (get, set)',
      labelNames: ['op'],
      registers,
    }),
    scanCacheBytes: new client.Gauge({
      name: 'cf_scan_cache_bytes',
      help: "Approximate size of this process's local detector-result cache",
      registers,
    }),
    poolWait: new client.Histogram({
      name: 'cf_pool_wait_seconds',
      help: 'Time a model request waited in the FIFO before a worker took it',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    poolBatchTexts: new client.Histogram({
      name: 'cf_pool_batch_texts',
      help: 'Texts per inference task (micro-batch size)',
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers,
    }),
    poolRejections: new client.Counter({
      name: 'cf_pool_rejections_total',
      help: 'Model requests refused: queue full (503) or deadline passed (504)',
      labelNames: ['reason'],
      registers,
    }),
    scanWriteBatch: new client.Histogram({
      name: 'cf_scan_write_batch_rows',
      help: 'Scans per group-commit transaction',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
      registers,
    }),
    scanWriteDuration: new client.Histogram({
      name: 'cf_scan_write_duration_seconds',
      help: 'Group-commit transaction time',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    jobRuns: new client.Counter({
      name: 'jobs_runs_total',
      help: 'Scheduled job runs in this process by job and outcome (success, failure)',
      labelNames: ['job', 'outcome'],
      registers,
    }),
    jobDuration: new client.Histogram({
      name: 'job_duration_seconds',
      help: 'Job run time by job',
      labelNames: ['job'],
      buckets: [0.001, 0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 600],
      registers,
    }),
    jobLag: new client.Histogram({
      name: 'job_lag_seconds',
      help: 'How late a job run started after the time it was due (nextRunAt)',
      labelNames: ['job'],
      buckets: [0.01, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900],
      registers,
    }),
    scanContentExpired: new client.Counter({
      name: 'scan_content_expired_total',
      help: 'Scans whose captured content the retention job removed',
      registers,
    }),
    idempotencyKeysExpired: new client.Counter({
      name: 'idempotency_keys_expired_total',
      help: 'Idempotency-Key records deleted past their retention',
      registers,
    }),
    webhookAttempts: new client.Counter({
      name: 'cf_webhook_attempts_total',
      help: 'Webhook delivery attempts made by this process, by outcome (succeeded, failed: a retry is scheduled, dead_lettered)',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptDuration: new client.Histogram({
      name: 'cf_webhook_attempt_duration_seconds',
      help: 'Webhook attempt time (connect to response preview)',
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    webhookLag: new client.Histogram({
      name: 'cf_webhook_attempt_lag_seconds',
      help: 'How late a webhook attempt started after it was due',
      buckets: [0.001, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60, 300],
      registers,
    }),
    webhookInFlight: new client.Gauge({
      name: 'cf_webhook_attempts_in_flight',
      help: 'Webhook attempts in flight in this process',
      registers,
    }),
    webhookEnqueued: new client.Counter({
      name: 'cf_webhook_deliveries_enqueued_total',
      help: 'Webhook deliveries enqueued with committed scans',
      registers,
    }),
    webhookDeliveriesPruned: new client.Counter({
      name: 'webhook_deliveries_pruned_total',
      help: 'Finished webhook deliveries deleted past WEBHOOK_DELIVERY_RETENTION_DAYS',
      registers,
    }),
    analyticsBucketsRolledUp: new client.Counter({
      name: 'analytics_buckets_rolled_up_total',
      help: 'Organization 15-minute analytics buckets recomputed from their scans by rollup-analytics',
      registers,
    }),
  };
}
