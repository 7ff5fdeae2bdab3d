import type { Routes } from '../../route.ts';
import { presentPrincipal, presentSessionWithoutOrganization } from './presenter.ts';
import { principalSchema } from './schema.ts';

/**
 * `GET /v1/me`: the calling principal. Unscoped, and answered for an SSO session of no organization
 * too (type `user`, `org_id` and `org_display_name` null, no scopes), so the dashboard can tell a new
 * user to create an organization or accept an invite.
 */
export function meRoutes(routes: Routes, deploymentMode: 'self_hosted' | 'saas'): void {
  routes.get('/v1/me', {
    operationId: 'getMe',
    access: 'identified',
    responds: { status: 200, body: principalSchema },
    handler: ({ req, res, session }) => {
      res.json(
        req.principal
          ? presentPrincipal(req.principal, session)
          : presentSessionWithoutOrganization(session, deploymentMode),
      );
    },
  });
}
