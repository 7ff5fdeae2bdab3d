import type { Queryable } from './db.ts';

export interface OrgRow {
  id: string;
  slug: string;
  display_name: string;
  /** The identity provider's id for it (the session token's org_id claim); its own id when created locally. */
  external_id: string;
  created_at: Date;
}

/** Creates an organization. */
export async function insertOrg(q: Queryable, org: OrgRow): Promise<OrgRow> {
  const { rows } = await q.query<OrgRow>(
    'INSERT INTO organizations (id, slug, display_name, external_id, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
    [org.id, org.slug, org.display_name, org.external_id, org.created_at],
  );
  return rows[0]!;
}

export async function getOrg(q: Queryable, orgId: string): Promise<OrgRow | null> {
  const { rows } = await q.query<OrgRow>('SELECT * FROM organizations WHERE id = $1', [orgId]);
  return rows[0] ?? null;
}

/** Finds an organization by id, slug or exact display name (operator tooling: the CLI). */
export async function findOrgByRef(q: Queryable, ref: string): Promise<OrgRow[]> {
  const { rows } = await q.query<OrgRow>(
    'SELECT * FROM organizations WHERE id = $1 OR slug = $1 OR display_name = $1 ORDER BY id',
    [ref],
  );
  return rows;
}

export async function listOrgs(q: Queryable): Promise<OrgRow[]> {
  const { rows } = await q.query<OrgRow>('SELECT * FROM organizations ORDER BY id');
  return rows;
}

/** Whether a slug is free. */
export async function slugTaken(q: Queryable, slug: string): Promise<boolean> {
  const { rowCount } = await q.query('SELECT 1 FROM organizations WHERE slug = $1', [slug]);
  return (rowCount ?? 0) > 0;
}

/** Serialises organization bootstraps until the transaction `tx` ends (two runs cannot both create "Acme"). */
export async function lockBootstraps(tx: Queryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock(727301002)');
}

/**
 * The organization row, locked until the transaction `tx` ends; null when it is gone. Deletion takes it
 * `update` (its guards hold under the lock); invite create and accept take it `share`, so a deletion
 * waits for their commit instead of missing the new invite or member.
 */
export async function lockOrg(
  tx: Queryable,
  orgId: string,
  mode: 'update' | 'share' = 'update',
): Promise<OrgRow | null> {
  const { rows } = await tx.query<OrgRow>(
    `SELECT * FROM organizations WHERE id = $1 ${mode === 'share' ? 'FOR SHARE' : 'FOR UPDATE'}`,
    [orgId],
  );
  return rows[0] ?? null;
}

export async function getOrgByExternalId(q: Queryable, externalId: string): Promise<OrgRow | null> {
  const { rows } = await q.query<OrgRow>('SELECT * FROM organizations WHERE external_id = $1', [externalId]);
  return rows[0] ?? null;
}

/**
 * Creates the organization unless one with its external id exists (a concurrent first request made it):
 * returns the row either way. A slug taken meanwhile is retried with a suffix by the caller.
 */
export async function insertOrgIfAbsent(q: Queryable, org: OrgRow): Promise<OrgRow | null> {
  const { rows } = await q.query<OrgRow>(
    `INSERT INTO organizations (id, slug, display_name, external_id, created_at) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT DO NOTHING RETURNING *`,
    [org.id, org.slug, org.display_name, org.external_id, org.created_at],
  );
  return rows[0] ?? (await getOrgByExternalId(q, org.external_id));
}

/** Whether the identity provider's organization `externalId` was deleted here (never provisioned again). */
export async function isOrgDeleted(q: Queryable, externalId: string): Promise<boolean> {
  const { rowCount } = await q.query('SELECT 1 FROM deleted_organizations WHERE external_id = $1', [externalId]);
  return (rowCount ?? 0) > 0;
}

/** Records the deletion of `externalId` (idempotent). */
export async function insertDeletedOrg(q: Queryable, externalId: string, at: Date): Promise<void> {
  await q.query(
    'INSERT INTO deleted_organizations (external_id, deleted_at) VALUES ($1, $2) ON CONFLICT (external_id) DO NOTHING',
    [externalId, at],
  );
}

export async function markProviderOrgDeleted(q: Queryable, externalId: string, at: Date): Promise<void> {
  await q.query('UPDATE deleted_organizations SET provider_deleted_at = $2 WHERE external_id = $1', [externalId, at]);
}

/** Deleted organizations the identity provider has not confirmed yet, oldest first. */
export async function listProviderDeletionsDue(q: Queryable, limit: number): Promise<string[]> {
  const { rows } = await q.query<{ external_id: string }>(
    `SELECT external_id FROM deleted_organizations WHERE provider_deleted_at IS NULL
      ORDER BY deleted_at LIMIT $1`,
    [limit],
  );
  return rows.map((r) => r.external_id);
}
