import type { RouteEntry } from './model.ts';

/** The caller (api/routes/me/): any valid key. */
export const ME_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/me', scope: 'authenticated', resource: 'principal' },
];
