import { z } from 'zod';
import { USER_ROLES, type ChangeMemberRoleInput } from '../../../services/members.ts';
import { cursorInstant } from '../../fields.ts';
import { pageQuery } from '../../pagination.ts';

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
