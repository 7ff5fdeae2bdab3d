import { pageQueryOnly, type RouteEntry } from './model.ts';

/** API keys (api/routes/api-keys/): create, list, read, revoke, rotate. */
export const API_KEY_ROUTES: readonly RouteEntry[] = [
  {
    method: 'POST',
    path: '/v1/api-keys',
    scope: 'api_keys:write',
    resource: 'api_key',
    // Scopes every key that holds api_keys:write may grant (the grant rule).
    bodies: () => [
      { name: 'reliability key', scopes: ['api_keys:write'], environment: 'test', expires_at: '2099-01-01T00:00:00Z' },
      { name: 'no expiry', scopes: ['api_keys:write'], no_expiry: true },
    ],
  },
  { method: 'GET', path: '/v1/api-keys', scope: 'api_keys:read', resource: 'api_key', list: pageQueryOnly },
  { method: 'GET', path: '/v1/api-keys/{api_key_id}', scope: 'api_keys:read', resource: 'api_key' },
  {
    method: 'POST',
    path: '/v1/api-keys/{api_key_id}:revoke',
    scope: 'api_keys:write',
    resource: 'api_key',
    consumes: true,
    bodies: () => [{}],
  },
  {
    method: 'POST',
    path: '/v1/api-keys/{api_key_id}:rotate',
    scope: 'api_keys:write',
    resource: 'api_key',
    consumes: true,
    bodies: () => [{}],
  },
];
