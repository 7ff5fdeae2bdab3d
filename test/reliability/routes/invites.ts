import { pageQueryOnly, type RouteEntry } from './model.ts';

/** Invites (api/routes/invites/): list the actionable ones, create, revoke, accept by token. */
export const INVITE_ROUTES: readonly RouteEntry[] = [
  { method: 'GET', path: '/v1/invites', scope: 'admin', resource: 'invite', list: pageQueryOnly },
  {
    method: 'POST',
    path: '/v1/invites',
    scope: 'admin',
    resource: 'invite',
    bodies: () => [
      { email: 'invitee@example.com', role: 'member' },
      { email: 'Second.Invitee@Example.com', role: 'admin' },
    ],
  },
  {
    method: 'POST',
    path: '/v1/invites/{invite_id}:revoke',
    scope: 'admin',
    resource: 'invite',
    consumes: true,
    bodies: () => [{}],
  },
  {
    method: 'POST',
    path: '/v1/invites/{token}:accept',
    scope: 'identified',
    resource: 'invite',
    bodies: () => [{}],
    // The token opens its invite whatever the caller's organization; an API key has no email to match.
    expect: {
      self_hosted: { status: 403, code: 'invites.principal_email_unavailable' },
      saas: { status: 403, code: 'invites.principal_email_unavailable' },
    },
    crossTenant: 'the token is the credential, accepted by a person of no (or another) organization: not an id',
  },
];
