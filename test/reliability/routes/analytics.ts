import type { RouteEntry } from './model.ts';
import { T0, T1 } from './samples.ts';

/**
 * A window inside every cap (7 days: the 15-minute grid's), on bin boundaries; the other samples are
 * off the grid (a `+02:00` offset, seconds and fractions) so alignment runs, and T0..T1 (4 years) is
 * past every cap (400 analytics.window_too_wide).
 */
const SINCE = '2026-11-20T00:00:00.000Z';
const UNTIL = '2026-11-27T00:00:00.000Z';
const window = {
  since: [SINCE, '2026-11-23T22:07:13.5+02:00', T0],
  until: [UNTIL, '2026-11-24T23:59:59Z', T1],
};

/**
 * Analytics (api/routes/analytics/): read-only sums over the organization's rollups, no ids, not paged
 * (no cursor: not `list`). `since` and `until` are required, so every valid request carries them.
 */
export const ANALYTICS_ROUTES: readonly RouteEntry[] = [
  {
    method: 'GET',
    path: '/v1/analytics/summary',
    scope: 'analytics:read',
    resource: 'analytics',
    query: window,
    requiredQuery: { since: SINCE, until: UNTIL },
  },
  {
    method: 'GET',
    path: '/v1/analytics/timeseries',
    scope: 'analytics:read',
    resource: 'analytics',
    query: { ...window, bucket: ['15m', '1h', '1d'] },
    requiredQuery: { since: SINCE, until: UNTIL, bucket: '15m' },
  },
  {
    method: 'GET',
    path: '/v1/analytics/surfaces',
    scope: 'analytics:read',
    resource: 'analytics',
    query: window,
    requiredQuery: { since: SINCE, until: UNTIL },
  },
  {
    method: 'GET',
    path: '/v1/analytics/detectors',
    scope: 'analytics:read',
    resource: 'analytics',
    query: { ...window, limit: ['1', '10', '50'] },
    requiredQuery: { since: SINCE, until: UNTIL },
  },
  {
    method: 'GET',
    path: '/v1/analytics/latency',
    scope: 'analytics:read',
    resource: 'analytics',
    query: { ...window, bucket: ['15m', '1h', '1d'] },
    requiredQuery: { since: SINCE, until: UNTIL, bucket: '1h' },
  },
];
