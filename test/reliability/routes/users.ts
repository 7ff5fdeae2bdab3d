import { pageQueryOnly, type RouteEntry } from './model.ts';

/**
 * Members (api/routes/users/): list, role change, removal. The fixture's member is a `member` (an API
 * key, even an admin one, may not touch an owner).
 */
export const USER_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/users', scope: 'admin', resource: 'user', list: pageQueryOnly },
  {
    method: 'PATCH',
    path: '/v1/users/{user_id}',
    scope: 'admin',
    resource: 'user',
    bodies: () => [{ role: 'admin' }, { role: 'member' }],
  },
  { method: 'DELETE', path: '/v1/users/{user_id}', scope: 'admin', resource: 'user', consumes: true },
];
