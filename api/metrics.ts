import client from 'prom-client';

/** The process's Prometheus metrics; one registry per app so tests can build many apps. */
export interface Metrics {
  registry: client.Registry;
  httpRequests: client.Counter<'method' | 'route' | 'status'>;
  httpDuration: client.Histogram<'method' | 'route'>;
  unhandledErrors: client.Counter;
}

export function createMetrics(collectDefaults: boolean): Metrics {
  const registry = new client.Registry();
  if (collectDefaults) client.collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new client.Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route pattern and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new client.Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method and route pattern',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    unhandledErrors: new client.Counter({
      name: 'http_unhandled_errors_total',
      help: 'Requests that ended in an unexpected 500',
      registers: [registry],
    }),
  };
}
