import { pageQueryOnly, type RouteEntry } from './model.ts';

/**
 * Legacy analysis sessions and usage (api/routes/legacy-analyses/): create and delete (uses its session
 * up) with `admin`, list, get and the month's usage with `scans:read` (docs/api.md). Session ids are
 * integers numbered per organization (routes/model.ts, RESOURCES: `perOrgNumber`).
 */
export const LEGACY_ANALYSIS_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/legacy-analyses', scope: 'scans:read', resource: 'legacy_analysis', list: pageQueryOnly },
  {
    method: 'POST',
    path: '/v1/legacy-analyses',
    scope: 'admin',
    resource: 'legacy_analysis',
    bodies: () => [{ name: 'reliability session' }, { name: 'described', description: 'a reliability session' }],
  },
  { method: 'GET', path: '/v1/legacy-analyses/{analysis_id}', scope: 'scans:read', resource: 'legacy_analysis' },
  {
    method: 'DELETE',
    path: '/v1/legacy-analyses/{analysis_id}',
    scope: 'admin',
    resource: 'legacy_analysis',
    consumes: true,
  },
  { method: 'GET', path: '/v1/legacy-usage', scope: 'scans:read', resource: 'legacy_usage' },
];
