import type { Queryable } from './db.ts';

export const USER_ROLES = ['owner', 'admin', 'member'] as const;
export type UserRole = (typeof USER_ROLES)[number];

/** A person of an organization, provisioned from their SSO session token or an accepted invite. */
export interface UserRow {
  id: string;
  org_id: string;
  /** The session token's `sub`. */
  external_subject: string;
  email: string | null;
  role: UserRole;
  created_at: Date;
  /** Set when the member was removed: their stale session tokens are refused, never re-provisioned. */
  removed_at: Date | null;
}

const COLUMNS = 'id, org_id, external_subject, email, role, created_at, removed_at';

export async function findUserBySubject(q: Queryable, orgId: string, subject: string): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(`SELECT ${COLUMNS} FROM users WHERE org_id = $1 AND external_subject = $2`, [
    orgId,
    subject,
  ]);
  return rows[0] ?? null;
}

/**
 * The user row of (organization, subject), created with `row` when there is none: concurrent first
 * requests of one person create one row (the unique pair), and each gets that row back.
 */
export async function provisionUser(q: Queryable, row: Omit<UserRow, 'removed_at'>): Promise<UserRow> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO users (id, org_id, external_subject, email, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (org_id, external_subject) DO NOTHING RETURNING ${COLUMNS}`,
    [row.id, row.org_id, row.external_subject, row.email, row.role, row.created_at],
  );
  return rows[0] ?? (await findUserBySubject(q, row.org_id, row.external_subject))!;
}

/**
 * Makes (organization, subject) a member with `role`: a new row, or the removed member's row restored
 * (its id and created_at kept). Returns null when the subject is already an active member.
 */
export async function addMemberRow(q: Queryable, row: Omit<UserRow, 'removed_at'>): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `INSERT INTO users (id, org_id, external_subject, email, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (org_id, external_subject) DO UPDATE
        SET removed_at = NULL, role = EXCLUDED.role, email = EXCLUDED.email
      WHERE users.removed_at IS NOT NULL
     RETURNING ${COLUMNS}`,
    [row.id, row.org_id, row.external_subject, row.email, row.role, row.created_at],
  );
  return rows[0] ?? null;
}

/** An active member by id, locked for the rest of the transaction when `forUpdate`. */
export async function getMember(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<UserRow | null> {
  const { rows } = await q.query<UserRow>(
    `SELECT ${COLUMNS} FROM users WHERE org_id = $1 AND id = $2 AND removed_at IS NULL${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** The organization's active owners' ids, locked (a demotion or removal checks "not the last owner" under them). */
export async function lockOwners(q: Queryable, orgId: string): Promise<string[]> {
  const { rows } = await q.query<{ id: string }>(
    `SELECT id FROM users WHERE org_id = $1 AND role = 'owner' AND removed_at IS NULL ORDER BY id FOR UPDATE`,
    [orgId],
  );
  return rows.map((r) => r.id);
}

/** Active members other than `exceptId`. */
export async function countOtherMembers(q: Queryable, orgId: string, exceptId: string): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM users WHERE org_id = $1 AND removed_at IS NULL AND id <> $2',
    [orgId, exceptId],
  );
  return rows[0]!.n;
}

export async function setMemberRole(q: Queryable, orgId: string, id: string, role: UserRole): Promise<UserRow> {
  const { rows } = await q.query<UserRow>(
    `UPDATE users SET role = $3 WHERE org_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [orgId, id, role],
  );
  return rows[0]!;
}

export async function markMemberRemoved(q: Queryable, orgId: string, id: string, at: Date): Promise<void> {
  await q.query('UPDATE users SET removed_at = $3 WHERE org_id = $1 AND id = $2', [orgId, id, at]);
}

/** Keyset position in the member list: (created_at, id), both descending. */
export interface MemberPosition {
  created_at: Date;
  id: string;
}

/** One page of active members, newest first (created_at descending, then id descending). */
export async function listMembers(
  q: Queryable,
  orgId: string,
  after: MemberPosition | undefined,
  limit: number,
): Promise<UserRow[]> {
  const { rows } = await q.query<UserRow>(
    `SELECT ${COLUMNS} FROM users
      WHERE org_id = $1 AND removed_at IS NULL
        AND ($2::timestamptz IS NULL OR (created_at, id) < ($2::timestamptz, $3::text))
      ORDER BY created_at DESC, id DESC LIMIT $4`,
    [orgId, after?.created_at ?? null, after?.id ?? null, limit],
  );
  return rows;
}
