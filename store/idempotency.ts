import type { Queryable } from './db.ts';

export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export type ClaimResult =
  | { kind: 'claimed' }
  | { kind: 'replay'; response: StoredResponse }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

/**
 * Claims (org, key) for a request. The INSERT … ON CONFLICT is the lock: of two concurrent requests
 * one inserts, the other sees the row. A row past its 24 h retention, or an in-progress claim whose
 * lock lapsed (its process died) for the same request, is taken over.
 */
export async function claimIdempotencyKey(
  q: Queryable,
  orgId: string,
  key: string,
  requestHash: Buffer,
  now: Date,
  lockUntil: Date,
  expiresAt: Date,
): Promise<ClaimResult> {
  const claimed = await q.query(
    `INSERT INTO idempotency_keys (org_id, key, request_hash, state, locked_until, created_at, expires_at)
     VALUES ($1, $2, $3, 'in_progress', $4, $5, $6)
     ON CONFLICT (org_id, key) DO UPDATE SET
       request_hash = EXCLUDED.request_hash, state = 'in_progress', locked_until = EXCLUDED.locked_until,
       created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
       response_status = NULL, response_headers = NULL, response_body = NULL
     WHERE idempotency_keys.expires_at <= $5
        OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until <= $5
            AND idempotency_keys.request_hash = EXCLUDED.request_hash)
     RETURNING 1`,
    [orgId, key, requestHash, lockUntil, now, expiresAt],
  );
  if ((claimed.rowCount ?? 0) > 0) return { kind: 'claimed' };

  const { rows } = await q.query<{
    request_hash: Buffer;
    state: string;
    response_status: number | null;
    response_headers: Record<string, string> | null;
    response_body: Buffer | null;
  }>('SELECT request_hash, state, response_status, response_headers, response_body FROM idempotency_keys WHERE org_id = $1 AND key = $2', [orgId, key]);
  const row = rows[0];
  // Deleted between the two statements (a failed request released it): the caller may simply retry.
  if (!row) return { kind: 'in_progress' };
  if (!row.request_hash.equals(requestHash)) return { kind: 'mismatch' };
  if (row.state !== 'completed') return { kind: 'in_progress' };
  return {
    kind: 'replay',
    response: { status: row.response_status!, headers: row.response_headers ?? {}, body: row.response_body ?? Buffer.alloc(0) },
  };
}

/** Records the response of a claimed request so later reuses replay it. */
export async function completeIdempotencyKey(q: Queryable, orgId: string, key: string, response: StoredResponse): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $3, response_headers = $4, response_body = $5
     WHERE org_id = $1 AND key = $2`,
    [orgId, key, response.status, JSON.stringify(response.headers), response.body],
  );
}

/** Drops an in-progress claim (the request failed with a server error), so a retry runs afresh. */
export async function releaseIdempotencyKey(q: Queryable, orgId: string, key: string): Promise<void> {
  await q.query(`DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND state = 'in_progress'`, [orgId, key]);
}

/** Deletes expired records in batches; returns how many went. (Scheduled by the jobs issue.) */
export async function deleteExpiredIdempotencyKeys(q: Queryable, now: Date, batch = 5_000): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
    [now, batch],
  );
  return rowCount ?? 0;
}
