import type { AcceptedInvite } from '../../../services/invites.ts';
import type { InviteRow } from '../../../store/invites.ts';
import { iso } from '../../present.ts';
import { presentOrganization } from '../organizations/presenter.ts';
import { presentUser } from '../users/presenter.ts';

/** The Invite resource: never the token (only the create answer's accept URL carries it). */
export function presentInvite(i: InviteRow) {
  return { id: i.id, email: i.email, role: i.role, expires_at: iso(i.expires_at), created_at: iso(i.created_at) };
}

/** The accept answer: the member, the organization joined, and the role. */
export function presentAccepted(a: AcceptedInvite) {
  return { user: presentUser(a.user), organization: presentOrganization(a.org), role: a.role };
}
