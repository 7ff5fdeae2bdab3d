import type { RouteEntry } from './model.ts';

/** The OpenAPI document (api/openapi/): public, generated from the route table; then its reference page. */
export const OPENAPI_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/openapi.json', scope: 'public', resource: 'service' },
  // Appended, so the routes above keep their seeds.
  { method: 'GET', path: '/docs', scope: 'public', resource: 'service' },
  { method: 'GET', path: '/docs/assets/swagger-ui-bundle.js', scope: 'public', resource: 'service' },
  { method: 'GET', path: '/docs/assets/swagger-ui.css', scope: 'public', resource: 'service' },
];
