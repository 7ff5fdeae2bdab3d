import type { Queryable } from './db.ts';

export interface ApiKeyRow {
  id: string;
  org_id: string;
  name: string;
  environment: 'live' | 'test';
  last_four: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  rotated_from: string | null;
  created_by: string | null;
}

/** What authentication needs: the key and its organization's display name. */
export interface KeyLookupRow extends ApiKeyRow {
  org_display_name: string;
}

const COLUMNS =
  'id, org_id, name, environment, last_four, scopes, created_at, expires_at, revoked_at, last_used_at, rotated_from, created_by';

export async function insertApiKey(
  q: Queryable,
  orgId: string,
  key: Omit<ApiKeyRow, 'org_id'>,
  secretHash: Buffer,
): Promise<ApiKeyRow> {
  const { rows } = await q.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, org_id, name, environment, last_four, secret_hash, scopes, created_at, expires_at, revoked_at, last_used_at, rotated_from, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${COLUMNS}`,
    [
      key.id,
      orgId,
      key.name,
      key.environment,
      key.last_four,
      secretHash,
      key.scopes,
      key.created_at,
      key.expires_at,
      key.revoked_at,
      key.last_used_at,
      key.rotated_from,
      key.created_by,
    ],
  );
  return rows[0]!;
}

/** One page of the organization's keys, newest first (ids are time-ordered ULIDs). */
export async function listApiKeys(
  q: Queryable,
  orgId: string,
  opts: { beforeId?: string; limit: number },
): Promise<ApiKeyRow[]> {
  const { rows } = await q.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 AND ($2::text IS NULL OR id < $2) ORDER BY id DESC LIMIT $3`,
    [orgId, opts.beforeId ?? null, opts.limit],
  );
  return rows;
}

export async function getApiKey(q: Queryable, orgId: string, id: string, forUpdate = false): Promise<ApiKeyRow | null> {
  const { rows } = await q.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys WHERE org_id = $1 AND id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [orgId, id],
  );
  return rows[0] ?? null;
}

/** Sets `revoked_at` on an active key; returns the updated row, or null when absent or already revoked. */
export async function markRevoked(q: Queryable, orgId: string, id: string, at: Date): Promise<ApiKeyRow | null> {
  const { rows } = await q.query<ApiKeyRow>(
    `UPDATE api_keys SET revoked_at = $3 WHERE org_id = $1 AND id = $2 AND revoked_at IS NULL RETURNING ${COLUMNS}`,
    [orgId, id, at],
  );
  return rows[0] ?? null;
}

export async function countActiveKeys(q: Queryable, orgId: string, now: Date): Promise<number> {
  const { rows } = await q.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $2)',
    [orgId, now],
  );
  return rows[0]!.n;
}

/**
 * Authentication lookup by secret hash. Deliberately not scoped by organization: the hash is what
 * identifies the organization. Nothing else may call it.
 */
export async function findKeyBySecretHash(q: Queryable, secretHash: Buffer): Promise<KeyLookupRow | null> {
  const { rows } = await q.query<KeyLookupRow>(
    `SELECT ${COLUMNS.split(', ')
      .map((c) => `k.${c}`)
      .join(', ')}, o.display_name AS org_display_name
       FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.secret_hash = $1`,
    [secretHash],
  );
  return rows[0] ?? null;
}

/** Records use; callers throttle it so a busy key writes at most once a minute. */
export async function touchLastUsed(q: Queryable, orgId: string, id: string, at: Date): Promise<void> {
  await q.query(
    'UPDATE api_keys SET last_used_at = $3 WHERE org_id = $1 AND id = $2 AND (last_used_at IS NULL OR last_used_at < $3)',
    [orgId, id, at],
  );
}
