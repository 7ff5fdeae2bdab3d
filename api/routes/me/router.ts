import type { Routes } from '../../route.ts';

/** `GET /v1/me`: the calling principal. Unscoped. */
export function meRoutes(routes: Routes): void {
  routes.get('/v1/me', {
    access: 'authenticated',
    handler: ({ res, principal }) => {
      const { type, org_id, org_display_name, actor_id, scopes, deployment_mode } = principal;
      res.json({ type, org_id, org_display_name, actor_id, scopes, deployment_mode });
    },
  });
}
