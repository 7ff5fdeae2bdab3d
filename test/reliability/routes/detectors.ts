import { pageQueryOnly, type RouteEntry } from './model.ts';

/** The detector catalog (api/routes/detectors/): unscoped. */
export const DETECTOR_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/detectors', scope: 'authenticated', resource: 'detector', list: pageQueryOnly },
];
