import type { Queryable } from './db.ts';

/** An evidence upload: what the caller declared, and when its bytes were received and checked. */
export interface EvidenceUploadRow {
  storage_key: string;
  org_id: string;
  kind: string;
  sha256: string;
  /** bigint in PostgreSQL; at most 104857600, so a JS number (parsed in the query). */
  size_bytes: number;
  backend: 'local' | 's3';
  created_at: Date;
  expires_at: Date;
  verified_at: Date | null;
}

const COLUMNS =
  'storage_key, org_id, kind, sha256, size_bytes::int AS size_bytes, backend, created_at, expires_at, verified_at';

export async function insertUpload(
  q: Queryable,
  row: Omit<EvidenceUploadRow, 'verified_at'>,
): Promise<EvidenceUploadRow> {
  const { rows } = await q.query<EvidenceUploadRow>(
    `INSERT INTO evidence_uploads (storage_key, org_id, kind, sha256, size_bytes, backend, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [row.storage_key, row.org_id, row.kind, row.sha256, row.size_bytes, row.backend, row.created_at, row.expires_at],
  );
  return rows[0]!;
}

export async function getUpload(q: Queryable, orgId: string, key: string): Promise<EvidenceUploadRow | null> {
  const { rows } = await q.query<EvidenceUploadRow>(
    `SELECT ${COLUMNS} FROM evidence_uploads WHERE org_id = $1 AND storage_key = $2`,
    [orgId, key],
  );
  return rows[0] ?? null;
}

/** Sets `verified_at` once; null when the upload was already verified (or is unknown). */
export async function markVerified(
  q: Queryable,
  orgId: string,
  key: string,
  at: Date,
): Promise<EvidenceUploadRow | null> {
  const { rows } = await q.query<EvidenceUploadRow>(
    `UPDATE evidence_uploads SET verified_at = $3
      WHERE org_id = $1 AND storage_key = $2 AND verified_at IS NULL RETURNING ${COLUMNS}`,
    [orgId, key, at],
  );
  return rows[0] ?? null;
}

/** Which of `keys` name verified uploads of the organization (a labeled-event append checks its references). */
export async function verifiedKeys(q: Queryable, orgId: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await q.query<{ storage_key: string }>(
    `SELECT storage_key FROM evidence_uploads
      WHERE org_id = $1 AND storage_key = ANY($2::text[]) AND verified_at IS NOT NULL`,
    [orgId, [...keys]],
  );
  return new Set(rows.map((r) => r.storage_key));
}

/** Uploads never verified whose URL expired before `before`, oldest first (the cleanup job). */
export async function listAbandonedUploads(
  q: Queryable,
  before: Date,
  limit: number,
): Promise<Pick<EvidenceUploadRow, 'org_id' | 'storage_key'>[]> {
  const { rows } = await q.query<Pick<EvidenceUploadRow, 'org_id' | 'storage_key'>>(
    `SELECT org_id, storage_key FROM evidence_uploads
      WHERE verified_at IS NULL AND expires_at < $1 ORDER BY expires_at LIMIT $2`,
    [before, limit],
  );
  return rows;
}

/** Deletes the given uploads if they are still unverified (a late upload that verified meanwhile stays). */
export async function deleteUnverifiedUploads(q: Queryable, keys: readonly string[]): Promise<number> {
  const { rowCount } = await q.query(
    'DELETE FROM evidence_uploads WHERE storage_key = ANY($1::text[]) AND verified_at IS NULL',
    [keys],
  );
  return rowCount ?? 0;
}
