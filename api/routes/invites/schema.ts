import { z } from 'zod';
import type { CreateInviteInput } from '../../../services/invites.ts';
import { pageQuery } from '../../pagination.ts';

export const createInviteBody = z.strictObject({
  email: z.email('must be an email address').max(320, 'must be at most 320 characters'),
  role: z.enum(['admin', 'member']),
}) satisfies z.ZodType<CreateInviteInput>;

export const inviteIdParams = z.object({
  invite_id: z
    .string()
    .regex(/^inv_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be inv_ followed by 26 Crockford base32 characters'),
});

/**
 * The accept path's token: any string here, so that a token of the wrong shape answers 404
 * `invites.not_found` like an unknown one (the use case checks the shape).
 */
export const inviteTokenParams = z.object({ token: z.string() });

export const listInvitesQuery = pageQuery;
