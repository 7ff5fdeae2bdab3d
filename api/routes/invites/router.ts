import type { Request } from 'express';
import { acceptInvite, createInvite, listInvites, revokeInvite } from '../../../services/invites.ts';
import type { AppServices } from '../../context.ts';
import { emptyBody } from '../../fields.ts';
import { page, readIdCursor } from '../../pagination.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import type { Routes } from '../../route.ts';
import { presentAccepted, presentCreated, presentInvite } from './presenter.ts';
import {
  acceptedInviteSchema,
  createdInviteSchema,
  createInviteBody,
  inviteIdParams,
  invitePageSchema,
  inviteTokenParams,
  listInvitesQuery,
} from './schema.ts';

const LIST = 'invites';

/**
 * Invites (docs/identity.md): create `POST /v1/invites` (201 with the one-time accept URL), list
 * `GET /v1/invites` (actionable ones), revoke `POST /v1/invites/{invite_id}:revoke` (204), all with
 * the admin scope; accept `POST /v1/invites/{token}:accept` with any SSO session, one of no
 * organization included.
 */
export function inviteRoutes(routes: Routes, s: AppServices): void {
  const actor = (req: Request) => ({ id: req.principal!.actor_id, requestId: req.id });

  routes.post('/v1/invites/:token\\:accept', {
    operationId: 'acceptInvite',
    access: 'identified',
    params: inviteTokenParams,
    body: emptyBody,
    responds: { status: 200, body: acceptedInviteSchema, description: 'Accepted: the caller is now a member.' },
    errors: [
      entries.inviteNotFound,
      entries.inviteExpired,
      entries.invitePrincipalEmailUnavailable,
      entries.inviteEmailMismatch,
      entries.inviteAlreadyMember,
      entries.inviteUpstreamFailure,
    ],
    handler: async ({ req, res, session, params }) => {
      const accepted = await acceptInvite(
        s.identity,
        { session, principal: req.principal, requestId: req.id },
        params.token,
      );
      res.json(presentAccepted(accepted));
    },
  });

  routes.post('/v1/invites/:invite_id\\:revoke', {
    operationId: 'revokeInvite',
    access: 'admin',
    params: inviteIdParams,
    body: emptyBody,
    responds: { status: 204, description: 'Revoked (also when it already was revoked or accepted).' },
    errors: [entries.inviteNotFound],
    handler: async ({ req, res, principal, params }) => {
      await revokeInvite(s.identity, principal.org_id, params.invite_id, actor(req));
      res.status(204).send();
    },
  });

  routes.get('/v1/invites', {
    operationId: 'listInvites',
    access: 'admin',
    query: listInvitesQuery,
    responds: { status: 200, body: invitePageSchema },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const before = readIdCursor(s.cursors, LIST, principal.org_id, query.cursor);
      const { rows, more } = await listInvites(s.identity, principal.org_id, before, query.limit);
      res.json(page(s.cursors, LIST, principal.org_id, rows.map(presentInvite), rows.at(-1)?.id, more));
    },
  });

  routes.post('/v1/invites', {
    operationId: 'createInvite',
    access: 'admin',
    body: createInviteBody,
    responds: { status: 201, body: createdInviteSchema },
    errors: [entries.organizationNotFound],
    handler: async ({ req, res, principal, body }) => {
      const { invite, acceptUrl } = await createInvite(s.identity, principal.org_id, body, actor(req));
      res.status(201).json(presentCreated(invite, acceptUrl));
    },
  });
}
