import type { Queryable } from './db.ts';

export interface OrgRow {
  id: string;
  slug: string;
  display_name: string;
  created_at: Date;
}

/** Creates an organization. */
export async function insertOrg(q: Queryable, org: OrgRow): Promise<OrgRow> {
  const { rows } = await q.query<OrgRow>(
    'INSERT INTO organizations (id, slug, display_name, created_at) VALUES ($1, $2, $3, $4) RETURNING *',
    [org.id, org.slug, org.display_name, org.created_at],
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
