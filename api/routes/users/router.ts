import { changeMemberRole, listOrgMembers, removeMember } from '../../../services/members.ts';
import type { AppServices } from '../../context.ts';
import { readCursor } from '../../pagination.ts';
import { entries } from '../../../lib/error-catalogue.ts';
import { cursorProblem } from '../../openapi/problems.ts';
import type { Routes } from '../../route.ts';
import { presentUser } from './presenter.ts';
import {
  changeRoleBody,
  listUsersQuery,
  memberCursorPayload,
  userIdParams,
  userPageSchema,
  userSchema,
} from './schema.ts';

const LIST = 'users';

/** What a role change or removal answers besides the usual: the guards, then the identity provider. */
const MEMBER_CHANGE_PROBLEMS = [
  entries.userNotFound,
  entries.ownerRequired,
  entries.lastOwner,
  entries.identityProviderFailure,
];

/**
 * Members of the caller's organization (docs/identity.md): list `GET /v1/users`, role change
 * `PATCH /v1/users/{user_id}` (200 User), removal `DELETE /v1/users/{user_id}` (204). Only an owner
 * may grant the owner role or change or remove an owner; the last owner stays.
 */
export function userRoutes(routes: Routes, s: AppServices): void {
  routes.get('/v1/users', {
    operationId: 'listUsers',
    access: 'admin',
    query: listUsersQuery,
    responds: { status: 200, body: userPageSchema },
    errors: [cursorProblem(LIST)],
    handler: async ({ res, principal, query }) => {
      const after = readCursor(s.cursors, LIST, principal.org_id, query.cursor, memberCursorPayload);
      const { rows, more } = await listOrgMembers(s.identity, principal.org_id, after, query.limit);
      const last = rows.at(-1);
      res.json({
        data: rows.map(presentUser),
        next_cursor:
          more && last
            ? s.cursors.encode(LIST, principal.org_id, { created_at: last.created_at.toISOString(), id: last.id })
            : null,
      });
    },
  });

  routes.patch('/v1/users/:user_id', {
    operationId: 'updateUser',
    access: 'admin',
    params: userIdParams,
    body: changeRoleBody,
    responds: { status: 200, body: userSchema, description: 'The member, with the role now held.' },
    errors: MEMBER_CHANGE_PROBLEMS,
    handler: async ({ req, res, principal, params, body }) => {
      const user = await changeMemberRole(s.identity, { principal, requestId: req.id }, params.user_id, body);
      res.json(presentUser(user));
    },
  });

  routes.delete('/v1/users/:user_id', {
    operationId: 'deleteUser',
    access: 'admin',
    params: userIdParams,
    responds: { status: 204, description: 'Removed.' },
    errors: MEMBER_CHANGE_PROBLEMS,
    handler: async ({ req, res, principal, params }) => {
      await removeMember(s.identity, { principal, requestId: req.id }, params.user_id);
      res.status(204).send();
    },
  });
}
