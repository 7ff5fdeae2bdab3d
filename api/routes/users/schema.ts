import { z } from 'zod';
import { USER_ROLES, type ChangeMemberRoleInput } from '../../../services/members.ts';
import { cursorInstant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';
import { instant, pageOf, resource } from '../../resources.ts';

export const USER_ID = /^usr_[0-9A-HJKMNP-TV-Z]{26}$/;

export const userIdParams = z.object({
  user_id: z.string().regex(USER_ID, 'must be usr_ followed by 26 Crockford base32 characters'),
});

export const changeRoleBody = z.strictObject({
  role: z.enum(USER_ROLES),
}) satisfies z.ZodType<ChangeMemberRoleInput>;

export const listUsersQuery = pageQuery;

/** What a member-list cursor carries: the last row's position (created_at as RFC 3339, id). */
export const memberCursorPayload = z.strictObject({
  created_at: cursorInstant,
  id: z.string().regex(USER_ID),
});

/** The User resource (`presentUser`): a member of an organization. */
export const userSchema = resource(
  'User',
  z.object({
    id: z.string().describe('`usr_` followed by 26 Crockford base32 characters.'),
    email: z.string().nullable().describe('The verified email of their SSO session; null when it carried none.'),
    role: z.enum(USER_ROLES),
    created_at: instant,
  }),
);

/** A page of `GET /v1/users`, newest member first. */
export const userPageSchema = pageOf('UserPage', userSchema);
