import type { z } from 'zod';
import type { UserRow } from '../../../store/users.ts';
import type { userSchema } from './schema.ts';

/** The User resource: a member of the caller's organization. */
export function presentUser(u: UserRow): z.output<typeof userSchema> {
  return { id: u.id, email: u.email, role: u.role, created_at: u.created_at.toISOString() };
}
