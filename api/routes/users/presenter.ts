import type { UserRow } from '../../../store/users.ts';
import { iso } from '../../present.ts';

/** The User resource: a member of the caller's organization. */
export function presentUser(u: UserRow) {
  return { id: u.id, email: u.email, role: u.role, created_at: iso(u.created_at) };
}
