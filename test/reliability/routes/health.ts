import type { RouteEntry } from './model.ts';

/** The probes (api/routes/health/): public, no credential; /metrics only with METRICS_ENABLED. */
export const HEALTH_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/healthz', scope: 'public', resource: 'service' },
  { method: 'GET', path: '/health', scope: 'public', resource: 'service' },
  { method: 'GET', path: '/readyz', scope: 'public', resource: 'service' },
  { method: 'GET', path: '/metrics', scope: 'public', resource: 'service', when: 'METRICS_ENABLED' },
];
