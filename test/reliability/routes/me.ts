import type { RouteEntry } from './model.ts';

/** The caller (api/routes/me/): any valid credential, an SSO session of no organization included. */
export const ME_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/me', scope: 'identified', resource: 'principal' },
];
