import type { Queryable } from './db.ts';

export interface InviteRow {
  id: string;
  org_id: string;
  email: string;
  role: 'admin' | 'member';
  created_at: Date;
  expires_at: Date;
  created_by: string | null;
  accepted_at: Date | null;
  accepted_by: string | null;
  revoked_at: Date | null;
}

const COLUMNS = 'id, org_id, email, role, created_at, expires_at, created_by, accepted_at, accepted_by, revoked_at';

export async function insertInvite(
  q: Queryable,
  row: Omit<InviteRow, 'accepted_at' | 'accepted_by' | 'revoked_at'>,
  tokenHash: Buffer,
): Promise<InviteRow> {
  const { rows } = await q.query<InviteRow>(
    `INSERT INTO invites (id, org_id, email, role, token_hash, created_at, expires_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [row.id, row.org_id, row.email, row.role, tokenHash, row.created_at, row.expires_at, row.created_by],
  );
  return rows[0]!;
}

/** One page of actionable invites (not accepted, not revoked, not expired at `now`), newest first. */
export async function listActionableInvites(
  q: Queryable,
  orgId: string,
  now: Date,
  beforeId: string | undefined,
  limit: number,
): Promise<InviteRow[]> {
  const { rows } = await q.query<InviteRow>(
    `SELECT ${COLUMNS} FROM invites
      WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2
        AND ($3::text IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [orgId, now, beforeId ?? null, limit],
  );
  return rows;
}

/** Pending invites (actionable at `now`): organization deletion refuses while there is one. */
export async function countPendingInvites(q: Queryable, orgId: string, now: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM invites
      WHERE org_id = $1 AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > $2`,
    [orgId, now],
  );
  return rows[0]!.n;
}

export async function getInvite(q: Queryable, orgId: string, id: string): Promise<InviteRow | null> {
  const { rows } = await q.query<InviteRow>(`SELECT ${COLUMNS} FROM invites WHERE org_id = $1 AND id = $2`, [
    orgId,
    id,
  ]);
  return rows[0] ?? null;
}

/** Revokes a pending invite; an accepted or already revoked one is left as it is. Returns whether it changed. */
export async function revokeInvite(q: Queryable, orgId: string, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE invites SET revoked_at = $3 WHERE org_id = $1 AND id = $2 AND revoked_at IS NULL AND accepted_at IS NULL`,
    [orgId, id, at],
  );
  return (rowCount ?? 0) > 0;
}

/**
 * The invite a token opens, in whichever organization (the token is the credential: 256 random bits,
 * looked up by its SHA-256), locked for the accepting transaction when `forUpdate`.
 */
export async function findInviteByTokenHash(
  q: Queryable,
  tokenHash: Buffer,
  forUpdate = false,
): Promise<InviteRow | null> {
  const { rows } = await q.query<InviteRow>(
    `SELECT ${COLUMNS} FROM invites WHERE token_hash = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [tokenHash],
  );
  return rows[0] ?? null;
}

export async function markInviteAccepted(
  q: Queryable,
  orgId: string,
  id: string,
  userId: string,
  at: Date,
): Promise<void> {
  await q.query('UPDATE invites SET accepted_at = $3, accepted_by = $4 WHERE org_id = $1 AND id = $2', [
    orgId,
    id,
    at,
    userId,
  ]);
}
