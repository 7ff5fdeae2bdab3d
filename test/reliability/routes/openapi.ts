import type { RouteEntry } from './model.ts';

/** The OpenAPI document (api/openapi/): public, generated from the route table. */
export const OPENAPI_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/openapi.json', scope: 'public', resource: 'service' },
];
