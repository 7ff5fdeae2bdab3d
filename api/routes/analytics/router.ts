import type { z } from 'zod';
import {
  analyticsBySurface,
  analyticsLatency,
  analyticsSummary,
  analyticsTimeSeries,
  analyticsTopDetectors,
} from '../../../services/analytics.ts';
import type { ScanEngine } from '../../../engine/pipeline.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import type { AppServices } from '../../context.ts';
import type { Routes } from '../../route.ts';
import { presentSurfaces, presentTopDetectors } from './presenter.ts';
import {
  AnalyticsLatency,
  AnalyticsSummary,
  AnalyticsTimeSeries,
  AnalyticsDetectors,
  AnalyticsSurfaces,
  bucketedQuery,
  topDetectorsQuery,
  windowQuery,
} from './schema.ts';

/**
 * Analytics (docs/analytics.md): read-only sums over the organization's 15-minute rollups, scope
 * `analytics:read`. Paths are ours (the spec does not show them): `/v1/analytics/<view>`.
 */
export function analyticsRoutes(routes: Routes, s: AppServices, engine: ScanEngine): void {
  const access = 'analytics:read';
  const errors = [entries.analyticsWindowTooWide];
  const categoryOf = (name: string) => engine.registry.get(name)?.category ?? null;

  routes.get('/v1/analytics/summary', {
    operationId: 'getAnalyticsSummary',
    access,
    query: windowQuery,
    responds: { status: 200, body: AnalyticsSummary },
    errors,
    handler: async ({ res, principal, query }) => {
      res.json((await analyticsSummary(s.db, principal.org_id, query)) satisfies z.output<typeof AnalyticsSummary>);
    },
  });
  routes.get('/v1/analytics/timeseries', {
    operationId: 'getAnalyticsTimeseries',
    access,
    query: bucketedQuery,
    responds: { status: 200, body: AnalyticsTimeSeries },
    errors,
    handler: async ({ res, principal, query }) => {
      const series = await analyticsTimeSeries(s.db, principal.org_id, query);
      res.json(series satisfies z.output<typeof AnalyticsTimeSeries>);
    },
  });
  routes.get('/v1/analytics/surfaces', {
    operationId: 'getAnalyticsSurfaces',
    access,
    query: windowQuery,
    responds: { status: 200, body: AnalyticsSurfaces },
    errors,
    handler: async ({ res, principal, query }) => {
      res.json(presentSurfaces(await analyticsBySurface(s.db, principal.org_id, query)));
    },
  });
  routes.get('/v1/analytics/detectors', {
    operationId: 'getAnalyticsDetectors',
    access,
    query: topDetectorsQuery,
    responds: { status: 200, body: AnalyticsDetectors },
    errors,
    handler: async ({ res, principal, query }) => {
      res.json(presentTopDetectors(await analyticsTopDetectors(s.db, principal.org_id, query, categoryOf)));
    },
  });
  routes.get('/v1/analytics/latency', {
    operationId: 'getAnalyticsLatency',
    access,
    query: bucketedQuery,
    responds: { status: 200, body: AnalyticsLatency },
    errors,
    handler: async ({ res, principal, query }) => {
      res.json((await analyticsLatency(s.db, principal.org_id, query)) satisfies z.output<typeof AnalyticsLatency>);
    },
  });
}
