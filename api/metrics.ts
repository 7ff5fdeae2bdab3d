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
  poolWait: client.Histogram;
  poolBatchTexts: client.Histogram;
  poolRejections: client.Counter<'reason'>;
  scanWriteBatch: client.Histogram;
  scanWriteDuration: client.Histogram;
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
    unhandledErrors: new client.Counter({ name: 'http_unhandled_errors_total', help: 'Requests that ended in an unexpected 500', registers }),
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
    decisions: new client.Counter({ name: 'cf_scan_decisions_total', help: 'Scan decisions by action and surface', labelNames: ['action', 'surface'], registers }),
    detectorFallbacks: new client.Counter({
      name: 'cf_detector_fallbacks_total',
      help: 'Scans whose model could not answer (accurate → fast fallback, NER or toxicity unavailable)',
      labelNames: ['detector', 'reason'],
      registers,
    }),
    poolWait: new client.Histogram({ name: 'cf_pool_wait_seconds', help: 'Time a model request waited in the FIFO before a worker took it', buckets: LATENCY_BUCKETS, registers }),
    poolBatchTexts: new client.Histogram({ name: 'cf_pool_batch_texts', help: 'Texts per inference task (micro-batch size)', buckets: [1, 2, 4, 8, 16, 32, 64], registers }),
    poolRejections: new client.Counter({ name: 'cf_pool_rejections_total', help: 'Model requests refused: queue full (503) or deadline passed (504)', labelNames: ['reason'], registers }),
    scanWriteBatch: new client.Histogram({ name: 'cf_scan_write_batch_rows', help: 'Scans per group-commit transaction', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers }),
    scanWriteDuration: new client.Histogram({ name: 'cf_scan_write_duration_seconds', help: 'Group-commit transaction time', buckets: LATENCY_BUCKETS, registers }),
  };
}
