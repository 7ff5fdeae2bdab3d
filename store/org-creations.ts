import type { Queryable } from './db.ts';

/** A POST /v1/organizations idempotency record, keyed by the caller's subject (it has no organization yet). */
export interface OrgCreationRow {
  subject: string;
  key: string;
  request_hash: Buffer;
  org_id: string | null;
  locked_until: Date;
  created_at: Date;
  expires_at: Date;
}

/** Claims (subject, key) for a new creation; returns the existing live record instead when there is one. */
export async function claimOrgCreation(
  q: Queryable,
  row: Omit<OrgCreationRow, 'org_id'>,
): Promise<{ claimed: true } | { claimed: false; existing: OrgCreationRow }> {
  // A record past its retention is the cleanup job's to delete; here it is simply replaced.
  await q.query('DELETE FROM organization_creations WHERE subject = $1 AND key = $2 AND expires_at <= $3', [
    row.subject,
    row.key,
    row.created_at,
  ]);
  const { rowCount } = await q.query(
    `INSERT INTO organization_creations (subject, key, request_hash, locked_until, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (subject, key) DO NOTHING`,
    [row.subject, row.key, row.request_hash, row.locked_until, row.created_at, row.expires_at],
  );
  if ((rowCount ?? 0) > 0) return { claimed: true };
  const { rows } = await q.query<OrgCreationRow>(
    'SELECT * FROM organization_creations WHERE subject = $1 AND key = $2',
    [row.subject, row.key],
  );
  // gone between the two statements (released): the caller retries as a fresh claim
  if (!rows[0]) return claimOrgCreation(q, row);
  return { claimed: false, existing: rows[0] };
}

/** Takes over a claim whose creation stopped without finishing or releasing it (its lock passed). */
export async function retakeOrgCreation(
  q: Queryable,
  subject: string,
  key: string,
  previousLock: Date,
  lockedUntil: Date,
): Promise<boolean> {
  const { rowCount } = await q.query(
    `UPDATE organization_creations SET locked_until = $4
      WHERE subject = $1 AND key = $2 AND org_id IS NULL AND locked_until = $3`,
    [subject, key, previousLock, lockedUntil],
  );
  return (rowCount ?? 0) > 0;
}

/** A completed creation by the same subject with the same body, still within retention (any key). */
export async function findCompletedCreation(
  q: Queryable,
  subject: string,
  requestHash: Buffer,
  now: Date,
): Promise<OrgCreationRow | null> {
  const { rows } = await q.query<OrgCreationRow>(
    `SELECT * FROM organization_creations
      WHERE subject = $1 AND request_hash = $2 AND org_id IS NOT NULL AND expires_at > $3
      ORDER BY created_at DESC LIMIT 1`,
    [subject, requestHash, now],
  );
  return rows[0] ?? null;
}

export async function completeOrgCreation(q: Queryable, subject: string, key: string, orgId: string): Promise<void> {
  await q.query('UPDATE organization_creations SET org_id = $3 WHERE subject = $1 AND key = $2', [subject, key, orgId]);
}

export async function releaseOrgCreation(q: Queryable, subject: string, key: string): Promise<void> {
  await q.query('DELETE FROM organization_creations WHERE subject = $1 AND key = $2 AND org_id IS NULL', [
    subject,
    key,
  ]);
}

/** Deletes up to `limit` records past retention; returns how many. */
export async function deleteExpiredOrgCreations(q: Queryable, now: Date, limit: number): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM organization_creations WHERE (subject, key) IN
       (SELECT subject, key FROM organization_creations WHERE expires_at <= $1 LIMIT $2)`,
    [now, limit],
  );
  return rowCount ?? 0;
}
