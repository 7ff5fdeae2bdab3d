import { createOrganizationForSession, deleteOwnOrganization } from '../../../services/org-lifecycle.ts';
import type { AppServices } from '../../context.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import type { Routes } from '../../route.ts';
import { presentOrganization } from './presenter.ts';
import { createOrganizationBody, organizationIdParams, organizationSchema } from './schema.ts';

/**
 * Organizations (docs/identity.md): create `POST /v1/organizations` (an SSO session of no organization;
 * 201, Idempotency-Key keyed by the session's subject), delete `DELETE /v1/organizations/{org_id}`
 * (the caller's own, 204). Both 501 in self-hosted deployments.
 */
export function organizationRoutes(routes: Routes, s: AppServices): void {
  routes.post('/v1/organizations', {
    operationId: 'createOrganization',
    access: 'identified',
    body: createOrganizationBody,
    responds: {
      status: 201,
      body: organizationSchema,
      headers: ['Location'],
      description: 'Created, the caller its owner (or, for a repeated Idempotency-Key, the one created then).',
    },
    errors: [
      entries.onboardingUnsupported,
      entries.onboardingSessionRequired,
      entries.onboardingAlreadyInOrganization,
      entries.identityProviderFailure,
    ],
    handler: async ({ req, res, session, body }) => {
      const { org, replayed } = await createOrganizationForSession(
        s.identity,
        { session, principal: req.principal, requestId: req.id },
        body,
        req.principal ? undefined : req.get('idempotency-key'),
      );
      if (replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(201).location(`/v1/organizations/${org.id}`).json(presentOrganization(org));
    },
  });

  routes.delete('/v1/organizations/:org_id', {
    operationId: 'deleteOrganization',
    access: 'authenticated',
    params: organizationIdParams,
    responds: { status: 204, description: 'Deleted, with everything scoped to it.' },
    errors: [
      entries.organizationDeleteUnsupported,
      entries.organizationNotFound,
      entries.organizationDeleteNotOwner,
      entries.organizationDeleteOtherMembers,
      entries.organizationDeletePendingInvites,
    ],
    handler: async ({ req, res, principal, params }) => {
      await deleteOwnOrganization(s.identity, principal, params.org_id, req.id);
      res.status(204).send();
    },
  });
}
