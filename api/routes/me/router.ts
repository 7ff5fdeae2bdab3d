import type { Routes } from '../../route.ts';

/**
 * `GET /v1/me`: the calling principal. Unscoped, and answered for an SSO session of no organization
 * too (type `user`, `org_id` and `org_display_name` null, no scopes), so the dashboard can tell a new
 * user to create an organization or accept an invite.
 */
export function meRoutes(routes: Routes, deploymentMode: 'self_hosted' | 'saas'): void {
  routes.get('/v1/me', {
    access: 'identified',
    handler: ({ req, res, session }) => {
      const principal = req.principal;
      if (!principal) {
        res.json({
          type: 'user',
          org_id: null,
          org_display_name: null,
          actor_id: null,
          scopes: [],
          deployment_mode: deploymentMode,
          email: session?.email ?? null,
        });
        return;
      }
      const { type, org_id, org_display_name, actor_id, scopes, deployment_mode } = principal;
      const body: Record<string, unknown> = { type, org_id, org_display_name, actor_id, scopes, deployment_mode };
      if (type === 'user') {
        body.role = principal.role;
        body.email = session?.email ?? null;
      }
      res.json(body);
    },
  });
}
