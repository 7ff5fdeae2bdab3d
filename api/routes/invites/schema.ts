import { z } from 'zod';
import type { CreateInviteInput } from '../../../services/invites.ts';
import { pageQuery } from '../../pagination.ts';
import { instant, pageOf, resource } from '../../resources.ts';
import { organizationSchema } from '../organizations/schema.ts';
import { userSchema } from '../users/schema.ts';

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

/** The roles an invite may grant (never owner). */
const inviteRole = z.enum(['admin', 'member']);

/** The Invite resource (`presentInvite`): never its token. */
export const inviteSchema = resource(
  'Invite',
  z.object({
    id: z.string().describe('`inv_` followed by 26 Crockford base32 characters.'),
    email: z.string().describe('Whom it is for: only an SSO session with this email may accept it.'),
    role: inviteRole,
    expires_at: instant,
    created_at: instant,
  }),
);

/** A page of `GET /v1/invites`: the actionable invites (pending, unexpired), newest first. */
export const invitePageSchema = pageOf('InvitePage', inviteSchema);

/** The create answer: the invite and its one-time accept URL. */
export const createdInviteSchema = resource(
  'CreatedInvite',
  z.object({
    invite: inviteSchema,
    accept_url: z
      .string()
      .describe(
        '`<PUBLIC_URL>/dashboard/invites/accept#token=<token>`: carries the token, shown only here (and in the email).',
      ),
  }),
);

/** The accept answer (`presentAccepted`): the new member, the organization joined, and the role. */
export const acceptedInviteSchema = resource(
  'AcceptedInvite',
  z.object({ user: userSchema, organization: organizationSchema, role: inviteRole }),
);
