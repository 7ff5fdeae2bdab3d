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
  | { kind: 'foreign'; legacy: boolean }
  /** `lockedUntil`: when the running claim lapses unless its owner renews it (null: the row just went). */
  | { kind: 'in_progress'; lockedUntil: Date | null };

/**
 * Claims (org, key) for a request by `principalId`. The INSERT … ON CONFLICT is the lock: of two
 * concurrent requests one inserts, the other sees the row. A row past its 24 h retention, or an
 * in-progress claim whose lock lapsed (its process died and stopped renewing it: `renewIdempotencyClaims`)
 * for the same request by the same principal, is taken over. A live row of another principal — or of none: written before records were bound
 * (`legacy`) — is `foreign`, whatever its state or request, so nothing of it is revealed.
 */
export async function claimIdempotencyKey(
  q: Queryable,
  orgId: string,
  key: string,
  principalId: string,
  requestHash: Buffer,
  now: Date,
  lockUntil: Date,
  expiresAt: Date,
): Promise<ClaimResult> {
  const claimed = await q.query(
    `INSERT INTO idempotency_keys (org_id, key, principal_id, request_hash, state, locked_until, created_at, expires_at)
     VALUES ($1, $2, $7, $3, 'in_progress', $4, $5, $6)
     ON CONFLICT (org_id, key) DO UPDATE SET
       principal_id = EXCLUDED.principal_id,
       request_hash = EXCLUDED.request_hash, state = 'in_progress', locked_until = EXCLUDED.locked_until,
       created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at,
       response_status = NULL, response_headers = NULL, response_body = NULL
     WHERE idempotency_keys.expires_at <= $5
        OR (idempotency_keys.state = 'in_progress' AND idempotency_keys.locked_until <= $5
            AND idempotency_keys.request_hash = EXCLUDED.request_hash
            AND idempotency_keys.principal_id = EXCLUDED.principal_id)
     RETURNING 1`,
    [orgId, key, requestHash, lockUntil, now, expiresAt, principalId],
  );
  if ((claimed.rowCount ?? 0) > 0) return { kind: 'claimed' };

  const { rows } = await q.query<{
    principal_id: string | null;
    request_hash: Buffer;
    state: string;
    response_status: number | null;
    response_headers: Record<string, string> | null;
    response_body: Buffer | null;
    locked_until: Date;
  }>(
    'SELECT principal_id, request_hash, state, response_status, response_headers, response_body, locked_until FROM idempotency_keys WHERE org_id = $1 AND key = $2',
    [orgId, key],
  );
  const row = rows[0];
  // Deleted between the two statements (a failed request released it): the caller may simply retry.
  if (!row) return { kind: 'in_progress', lockedUntil: null };
  if (row.principal_id !== principalId) return { kind: 'foreign', legacy: row.principal_id === null };
  if (!row.request_hash.equals(requestHash)) return { kind: 'mismatch' };
  if (row.state !== 'completed') return { kind: 'in_progress', lockedUntil: row.locked_until };
  return {
    kind: 'replay',
    response: {
      status: row.response_status!,
      headers: row.response_headers ?? {},
      body: row.response_body ?? Buffer.alloc(0),
    },
  };
}

/** Records the response of a request `principalId` claimed, so its later reuses replay it. */
export async function completeIdempotencyKey(
  q: Queryable,
  orgId: string,
  key: string,
  principalId: string,
  response: StoredResponse,
): Promise<void> {
  await q.query(
    `UPDATE idempotency_keys SET state = 'completed', response_status = $4, response_headers = $5, response_body = $6
     WHERE org_id = $1 AND key = $2 AND principal_id = $3`,
    [orgId, key, principalId, response.status, JSON.stringify(response.headers), response.body],
  );
}

/** Drops `principalId`'s in-progress claim (the request failed with a server error), so a retry runs afresh. */
export async function releaseIdempotencyKey(
  q: Queryable,
  orgId: string,
  key: string,
  principalId: string,
): Promise<void> {
  await q.query(
    `DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND principal_id = $3 AND state = 'in_progress'`,
    [orgId, key, principalId],
  );
}

/** One running claim, as its owner renews it: `claimedAt` is the claim's `created_at`, so a claim taken over meanwhile is not renewed. */
export interface HeldClaim {
  orgId: string;
  key: string;
  principalId: string;
  claimedAt: Date;
}

/**
 * Moves the lock of every claim in `claims` still in progress (and still the same claim) to
 * `lockedUntil`: the owner's heartbeat. One statement for all of a process's long-running claims.
 * @returns how many were renewed.
 */
export async function renewIdempotencyClaims(
  q: Queryable,
  claims: readonly HeldClaim[],
  lockedUntil: Date,
): Promise<number> {
  if (claims.length === 0) return 0;
  const { rowCount } = await q.query(
    `UPDATE idempotency_keys k SET locked_until = $5
       FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS c(org_id, key, principal_id, created_at)
      WHERE k.org_id = c.org_id AND k.key = c.key AND k.principal_id = c.principal_id
        AND k.created_at = c.created_at AND k.state = 'in_progress'`,
    [
      claims.map((c) => c.orgId),
      claims.map((c) => c.key),
      claims.map((c) => c.principalId),
      claims.map((c) => c.claimedAt),
      lockedUntil,
    ],
  );
  return rowCount ?? 0;
}

/** Deletes expired records in batches; returns how many went. (Scheduled by the jobs issue.) */
export async function deleteExpiredIdempotencyKeys(q: Queryable, now: Date, batch = 5_000): Promise<number> {
  const { rowCount } = await q.query(
    `DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
    [now, batch],
  );
  return rowCount ?? 0;
}
