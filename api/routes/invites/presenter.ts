import type { z } from 'zod';
import type { AcceptedInvite } from '../../../services/invites.ts';
import type { InviteRow } from '../../../store/invites.ts';
import { presentOrganization } from '../organizations/presenter.ts';
import { presentUser } from '../users/presenter.ts';
import type { acceptedInviteSchema, createdInviteSchema, inviteSchema } from './schema.ts';

/** The Invite resource: never the token (only the create answer's accept URL carries it). */
export function presentInvite(i: InviteRow): z.output<typeof inviteSchema> {
  return {
    id: i.id,
    email: i.email,
    role: i.role,
    expires_at: i.expires_at.toISOString(),
    created_at: i.created_at.toISOString(),
  };
}

/** The accept answer: the member, the organization joined, and the role. */
export function presentAccepted(a: AcceptedInvite): z.output<typeof acceptedInviteSchema> {
  return { user: presentUser(a.user), organization: presentOrganization(a.org), role: a.role };
}

/** The create answer: the invite and its one-time accept URL. */
export function presentCreated(invite: InviteRow, acceptUrl: string): z.output<typeof createdInviteSchema> {
  return { invite: presentInvite(invite), accept_url: acceptUrl };
}
