import {
  analyticsBySurface,
  analyticsLatency,
  analyticsSummary,
  analyticsTimeSeries,
  analyticsTopDetectors,
} from '../../../services/analytics.ts';
import type { ScanEngine } from '../../../engine/pipeline.ts';
import type { AppServices } from '../../context.ts';
import type { Routes } from '../../route.ts';
import { bucketedQuery, topDetectorsQuery, windowQuery } from './schema.ts';

/**
 * Analytics (docs/analytics.md): read-only sums over the organization's 15-minute rollups, scope
 * `analytics:read`. Paths are ours (the spec does not show them): `/v1/analytics/<view>`.
 */
export function analyticsRoutes(routes: Routes, s: AppServices, engine: ScanEngine): void {
  const access = 'analytics:read';
  const categoryOf = (name: string) => engine.registry.get(name)?.category ?? null;

  routes.get('/v1/analytics/summary', {
    access,
    query: windowQuery,
    handler: async ({ res, principal, query }) => {
      res.json(await analyticsSummary(s.db, principal.org_id, query));
    },
  });
  routes.get('/v1/analytics/timeseries', {
    access,
    query: bucketedQuery,
    handler: async ({ res, principal, query }) => {
      res.json(await analyticsTimeSeries(s.db, principal.org_id, query));
    },
  });
  routes.get('/v1/analytics/surfaces', {
    access,
    query: windowQuery,
    handler: async ({ res, principal, query }) => {
      res.json(await analyticsBySurface(s.db, principal.org_id, query));
    },
  });
  routes.get('/v1/analytics/detectors', {
    access,
    query: topDetectorsQuery,
    handler: async ({ res, principal, query }) => {
      res.json(await analyticsTopDetectors(s.db, principal.org_id, query, categoryOf));
    },
  });
  routes.get('/v1/analytics/latency', {
    access,
    query: bucketedQuery,
    handler: async ({ res, principal, query }) => {
      res.json(await analyticsLatency(s.db, principal.org_id, query));
    },
  });
}
