import type { RouteEntry } from './model.ts';

/**
 * Organizations (api/routes/organizations/): create (an SSO session of no organization) and delete (the
 * caller's own, by its owner's session). Neither can succeed for the suites' API keys: self-hosted
 * deployments answer 501 before reading anything; in SaaS a key may not create an organization, and
 * is not its organization's owner. Neither route therefore consumes anything here.
 */
export const ORGANIZATION_ROUTES: readonly RouteEntry[] = [
  {
    method: 'POST',
    path: '/v1/organizations',
    scope: 'identified',
    resource: 'organization',
    bodies: () => [{ display_name: 'reliability organization' }],
    expect: {
      self_hosted: { status: 501, code: 'onboarding.unsupported_in_self_hosted' },
      saas: { status: 403, code: 'onboarding.session_required' },
    },
  },
  {
    method: 'DELETE',
    path: '/v1/organizations/{org_id}',
    scope: 'authenticated',
    resource: 'organization',
    expect: {
      self_hosted: { status: 501, code: 'organizations.delete.unsupported_in_self_hosted' },
      saas: { status: 409, code: 'organizations.delete.not_owner' },
    },
  },
];
